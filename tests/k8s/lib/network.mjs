// NetworkPolicy policy for one rendered overlay, evaluated the way Kubernetes does: a pod is isolated
// for ingress (egress) once any policy of that type selects it, and then only the union of those
// policies' rules lets traffic through. Components are told apart by their app.kubernetes.io/name
// label (noveltygrid-coordinator, -worker, -redis, ...). Checked:
//   - every pod is isolated both ways (a default-deny policy or its own);
//   - the coordinator's gRPC port (its container port named grpc) admits worker pods only;
//   - Redis (port named redis) admits the coordinator and the workers only, and both of them;
//   - every port named metrics admits only namespaces picked by a namespaceSelector (the monitoring
//     namespace), and does admit one;
//   - egress: a rule open to every destination allows DNS (53) only; rules to other namespaces or
//     address blocks name their ports; a 0.0.0.0/0 block excludes the cloud metadata address; workers
//     can resolve names.
import { join } from './report.mjs';
import { containersOf, podTemplates } from './pods.mjs';

const NAME = 'app.kubernetes.io/name';
const COORDINATOR = 'noveltygrid-coordinator';
const WORKER = 'noveltygrid-worker';
const REDIS = 'noveltygrid-redis';
const METADATA_IP = '169.254.169.254';

// Kubernetes label selector semantics (matchLabels and matchExpressions); {} selects everything.
export function selects(selector, labels) {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const values = e.values ?? [];
    if (e.operator === 'In' && !(has && values.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function ipv4(text) {
  const parts = text.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => p >= 0 && p < 256) ? parts.reduce((a, p) => a * 256 + p, 0) : null;
}

function inCidr(ip, cidr) {
  const [base, bits] = cidr.split('/');
  const b = ipv4(base);
  if (b === null) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(ip) / size) === Math.floor(b / size);
}

// Pods of the render: [{manifest, labels, namespace, ports: [{name, containerPort, protocol}]}].
function podsOf(manifests) {
  const pods = [];
  for (const m of manifests) {
    for (const t of podTemplates(m)) {
      const ports = containersOf(t.spec, t.path).flatMap((c) => c.container.ports ?? []);
      const labelsPath = join(t.path.replace(/\.?spec$/, ''), 'metadata.labels');
      pods.push({ manifest: m, labels: t.metadata.labels ?? {}, labelsPath, namespace: m.namespace, ports });
    }
  }
  return pods;
}

// A policy's types; without policyTypes, Ingress, and Egress too when it has egress rules.
function typesOf(spec) {
  return spec.policyTypes ?? ['Ingress', ...(spec.egress ? ['Egress'] : [])];
}

// Whether a rule's ports list covers PORT (a container port) of the pod.
function covers(rulePorts, port) {
  if (!rulePorts?.length) return true;
  return rulePorts.some((p) => (p.protocol ?? 'TCP') === (port.protocol ?? 'TCP') &&
    (p.port === undefined || p.port === port.containerPort || (port.name && p.port === port.name) ||
      (typeof p.port === 'number' && p.endPort !== undefined && port.containerPort >= p.port && port.containerPort <= p.endPort)));
}

export function checkNetwork(manifests, problems, file) {
  const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
  const pods = podsOf(manifests);
  const policiesOf = (pod, type) => policies.filter((p) => p.namespace === pod.namespace &&
    selects(p.object.spec?.podSelector, pod.labels) && typesOf(p.object.spec ?? {}).includes(type));
  const podsIn = (namespace, selector) => pods.filter((p) => p.namespace === namespace && selects(selector, p.labels));
  // Ingress rules of POD's policies covering PORT: [{policy, rule, path}].
  const ingressTo = (pod, port) => policiesOf(pod, 'Ingress').flatMap((policy) =>
    (policy.object.spec.ingress ?? []).map((rule, i) => ({ policy, rule, path: `spec.ingress[${i}]` }))
      .filter(({ rule }) => covers(rule.ports, port)));

  for (const pod of pods) {
    for (const type of ['Ingress', 'Egress']) {
      if (!policiesOf(pod, type).length) {
        problems.at(pod.manifest, pod.labelsPath,
          `no NetworkPolicy isolates this pod's ${type.toLowerCase()} (add a default-deny policy)`);
      }
    }
  }

  // ALLOWED(pod) says whether peers may be POD; WHO names them for the message.
  const onlyFrom = (pod, port, allowed, who, required) => {
    const rules = ingressTo(pod, port);
    for (const { policy, rule, path } of rules) {
      if (!rule.from?.length) {
        problems.at(policy, join(path, 'from'), `admits every source to ${pod.manifest.id} port ${port.name}; only ${who} may reach it`);
        continue;
      }
      rule.from.forEach((peer, i) => {
        const at = join(path, `from[${i}]`);
        if (peer.ipBlock || peer.namespaceSelector) {
          problems.at(policy, at, `admits other namespaces or addresses to ${pod.manifest.id} port ${port.name}; only ${who} may reach it`);
        } else {
          const bad = podsIn(policy.namespace, peer.podSelector).filter((p) => !allowed(p));
          if (bad.length) problems.at(policy, at, `admits ${bad[0].manifest.id} to ${pod.manifest.id} port ${port.name}; only ${who} may reach it`);
        }
      });
    }
    for (const name of required) {
      const reached = rules.some(({ policy, rule }) => (rule.from ?? []).some((peer) => !peer.ipBlock && !peer.namespaceSelector &&
        podsIn(policy.namespace, peer.podSelector).some((p) => p.labels[NAME] === name)));
      if (!reached) problems.at(pod.manifest, pod.labelsPath, `no NetworkPolicy lets ${name} reach port ${port.name} (${port.containerPort})`);
    }
  };

  const present = new Set(pods.map((p) => p.labels[NAME]));
  for (const pod of pods) {
    const role = pod.labels[NAME];
    for (const port of pod.ports) {
      if (role === COORDINATOR && port.name === 'grpc') {
        onlyFrom(pod, port, (p) => p.labels[NAME] === WORKER, 'the workers', present.has(WORKER) ? [WORKER] : []);
      } else if (role === REDIS && port.name === 'redis') {
        onlyFrom(pod, port, (p) => [COORDINATOR, WORKER].includes(p.labels[NAME]), 'the coordinator and the workers',
          [COORDINATOR, WORKER].filter((n) => present.has(n)));
      } else if (port.name === 'metrics') {
        checkMetrics(pod, port, ingressTo(pod, port), problems);
      }
    }
  }

  for (const policy of policies) checkEgress(policy, problems);
  for (const pod of pods.filter((p) => p.labels[NAME] === WORKER)) {
    const dns = policiesOf(pod, 'Egress').some((p) => (p.object.spec.egress ?? []).some((rule) =>
      covers(rule.ports, { containerPort: 53, protocol: 'UDP' })));
    if (!dns) problems.at(pod.manifest, pod.labelsPath, 'no NetworkPolicy lets the workers reach DNS (UDP 53)');
  }
  if (!policies.length && pods.length) problems.note(file, 'no NetworkPolicy at all');
}

function checkMetrics(pod, port, rules, problems) {
  let admitted = false;
  for (const { policy, rule, path } of rules) {
    if (!rule.from?.length) {
      problems.at(policy, join(path, 'from'), `admits every source to ${pod.manifest.id}'s metrics port; only the monitoring namespace may`);
      continue;
    }
    rule.from.forEach((peer, i) => {
      const sel = peer.namespaceSelector;
      const labelled = sel && (Object.keys(sel.matchLabels ?? {}).length || (sel.matchExpressions ?? []).length);
      if (!labelled || peer.ipBlock) {
        problems.at(policy, join(path, `from[${i}]`),
          `admits more than a labelled monitoring namespace to ${pod.manifest.id}'s metrics port (use a namespaceSelector with labels)`);
      } else {
        admitted = true;
      }
    });
  }
  if (!admitted) {
    problems.at(pod.manifest, pod.labelsPath,
      `no NetworkPolicy lets the monitoring namespace reach the metrics port (${port.containerPort})`);
  }
}

function checkEgress(policy, problems) {
  (policy.object.spec?.egress ?? []).forEach((rule, i) => {
    const path = `spec.egress[${i}]`;
    const onlyDns = (rule.ports ?? []).length > 0 && rule.ports.every((p) => p.port === 53);
    if (!rule.to?.length) {
      if (!onlyDns) problems.at(policy, join(path, 'to'), 'allows egress to every destination; only DNS (port 53) may be open like that');
      return;
    }
    rule.to.forEach((peer, j) => {
      const at = join(path, `to[${j}]`);
      if ((peer.namespaceSelector || peer.ipBlock) && !(rule.ports ?? []).length) {
        problems.at(policy, join(path, 'ports'), 'egress to other namespaces or addresses must name its ports');
      }
      if (peer.namespaceSelector && !peer.podSelector && !onlyDns &&
          !Object.keys(peer.namespaceSelector.matchLabels ?? {}).length && !(peer.namespaceSelector.matchExpressions ?? []).length) {
        problems.at(policy, join(at, 'namespaceSelector'), 'selects every namespace for more than DNS');
      }
      const cidr = peer.ipBlock?.cidr;
      if (cidr && ipv4(cidr.split('/')[0]) !== null && inCidr(METADATA_IP, cidr) &&
          !(peer.ipBlock.except ?? []).some((e) => inCidr(METADATA_IP, e))) {
        problems.at(policy, join(at, 'ipBlock.except'),
          `must exclude ${METADATA_IP} (169.254.0.0/16): cloud metadata endpoints hand out node credentials`);
      }
    });
  });
}
