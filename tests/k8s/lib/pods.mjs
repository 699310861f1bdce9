// Project policy for every pod template (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
// CronJob), containers and initContainers alike:
//   hardening  runAsNonRoot, never UID 0, seccomp RuntimeDefault, readOnlyRootFilesystem with an
//              emptyDir on /tmp, all capabilities dropped and none added, no privilege escalation, not
//              privileged, no host namespaces or hostPath, automountServiceAccountToken: false, CPU and
//              memory requests and limits;
//   images     pinned: a tag other than latest, or a digest;
//   secrets    never in env literals, args or commands (passwords in URLs, --token, --redis);
//   roles      a NoveltyGrid coordinator has gRPC startup and readiness probes and its Redis URL from a
//              Secret; a worker a gRPC readiness probe, the Redis URL from a Secret, and a termination
//              grace of at least --drain-grace-ms + 10 s (it exits within drain + 5 s); both serve
//              --metrics-listen on a port named metrics. Long-running pods have readiness probes.
import { join } from './report.mjs';

const TEMPLATE_PATHS = {
  Pod: [],
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};
const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
const SECRET_ENV = /(TOKEN|PASSWORD|PASSWD|SECRET|API_?KEY|CREDENTIAL|AUTH|REDIS_URL|_KEY$)/i;
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;
const FORBIDDEN_FLAGS = {
  '--token': 'the shared token goes in a file (--token-file) or NOVELTYGRID_TOKEN from a Secret',
  '--redis': 'the Redis URL (with its password) comes from a Secret as NOVELTYGRID_REDIS_URL',
  '--api-key': 'provider keys come from Secrets (api_key_file or api_key_env)',
};
const DEFAULT_DRAIN_MS = 30000;  // noveltygrid worker --drain-grace-ms default
const DEFAULT_GRACE_S = 30;      // Kubernetes' default terminationGracePeriodSeconds

// Pod templates of MANIFEST: [{spec, metadata, path}] (path: of the pod spec, e.g. "spec.template.spec").
export function podTemplates(manifest) {
  const steps = TEMPLATE_PATHS[manifest.kind];
  if (!steps) return [];
  let template = manifest.object;
  for (const step of steps) template = template?.[step];
  if (!template || typeof template !== 'object') return [];
  const base = steps.join('.');
  return [{ spec: template.spec ?? {}, metadata: template.metadata ?? {}, path: join(base, 'spec') }];
}

// Containers and initContainers of a pod spec: [{container, path, kind}].
export function containersOf(spec, podPath) {
  const out = [];
  for (const kind of ['initContainers', 'containers']) {
    (Array.isArray(spec[kind]) ? spec[kind] : []).forEach((container, i) => {
      out.push({ container: container ?? {}, path: join(podPath, `${kind}[${i}]`), kind });
    });
  }
  return out;
}

// "redis:7.2.5" -> {repository: "redis", tag: "7.2.5"}; digests count as pinned.
export function parseImage(image) {
  const [named, digest] = image.split('@');
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : '';
  const repository = colon > slash ? named.slice(0, colon) : named;
  return { repository, tag, digest: digest ?? '' };
}

function checkImage(manifest, c, at, problems) {
  const image = c.container.image;
  if (typeof image !== 'string' || image === '') {
    problems.at(manifest, at('image'), 'is missing');
    return;
  }
  const { tag, digest } = parseImage(image);
  if (digest) return;
  if (!tag) {
    problems.at(manifest, at('image'),
      `"${image}" has no tag: pin one in the overlay's kustomization.yaml (images: newTag)`);
  } else if (tag === 'latest') {
    problems.at(manifest, at('image'),
      `"${image}" is not pinned (:latest): pin a version in the overlay's kustomization.yaml (images: newTag)`);
  }
}

function checkSecurity(manifest, pod, c, at, problems) {
  const podSc = pod.spec.securityContext ?? {};
  const sc = c.container.securityContext;
  const runAsNonRoot = sc?.runAsNonRoot ?? podSc.runAsNonRoot;
  if (runAsNonRoot !== true) {
    problems.at(manifest, at('securityContext.runAsNonRoot'),
      'must be true (here or in the pod securityContext): containers run as non-root');
  }
  const uid = sc?.runAsUser ?? podSc.runAsUser;
  if (uid === 0) problems.at(manifest, at('securityContext.runAsUser'), 'is 0 (root)');
  const seccomp = sc?.seccompProfile?.type ?? podSc.seccompProfile?.type;
  if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') {
    problems.at(manifest, at('securityContext.seccompProfile.type'),
      `is ${seccomp === undefined ? 'unset' : JSON.stringify(seccomp)}; must be RuntimeDefault ` +
      '(here or in the pod securityContext)');
  }
  if (!sc || typeof sc !== 'object') {
    problems.at(manifest, at('securityContext'),
      `container "${c.container.name}" has no securityContext: it needs allowPrivilegeEscalation: false, ` +
      'readOnlyRootFilesystem: true and capabilities: {drop: [ALL]}');
    return;
  }
  if (sc.allowPrivilegeEscalation !== false) {
    problems.at(manifest, at('securityContext.allowPrivilegeEscalation'), 'must be false');
  }
  if (sc.readOnlyRootFilesystem !== true) {
    problems.at(manifest, at('securityContext.readOnlyRootFilesystem'),
      'must be true (mount an emptyDir where the container writes)');
  }
  if (sc.privileged === true) problems.at(manifest, at('securityContext.privileged'), 'must not be true');
  const drop = sc.capabilities?.drop ?? [];
  if (!drop.includes('ALL')) {
    problems.at(manifest, at('securityContext.capabilities.drop'), 'must contain ALL');
  }
  if ((sc.capabilities?.add ?? []).length) {
    problems.at(manifest, at('securityContext.capabilities.add'), 'must be empty: no capability is needed');
  }
}

function checkTmp(manifest, pod, c, at, problems) {
  if (c.container.securityContext?.readOnlyRootFilesystem !== true) return;
  const mount = (c.container.volumeMounts ?? []).find((m) => m?.mountPath === '/tmp');
  const volume = mount && (pod.spec.volumes ?? []).find((v) => v?.name === mount.name);
  if (!volume?.emptyDir) {
    problems.at(manifest, at('volumeMounts'),
      'has no emptyDir on /tmp: with a read-only root filesystem, /tmp must be a writable emptyDir');
  }
}

function checkResources(manifest, c, at, problems) {
  for (const bound of ['requests', 'limits']) {
    for (const resource of ['cpu', 'memory']) {
      if (c.container.resources?.[bound]?.[resource] === undefined) {
        problems.at(manifest, at(`resources.${bound}.${resource}`), 'is missing: every container sets requests and limits');
      }
    }
  }
}

function checkSecrets(manifest, c, at, problems) {
  (c.container.env ?? []).forEach((e, i) => {
    if (!e || typeof e !== 'object') return;
    if (e.value !== undefined && SECRET_ENV.test(e.name ?? '')) {
      problems.at(manifest, at(`env[${i}].value`),
        `${e.name} is a literal: secrets come from a Secret (valueFrom.secretKeyRef) or a mounted file`);
    } else if (typeof e.value === 'string' && URL_WITH_PASSWORD.test(e.value)) {
      problems.at(manifest, at(`env[${i}].value`), `${e.name} holds a URL with a password: take it from a Secret`);
    }
  });
  for (const field of ['command', 'args']) {
    const words = Array.isArray(c.container[field]) ? c.container[field] : [];
    words.forEach((word, i) => {
      if (typeof word !== 'string') return;
      const flag = word.split('=')[0];
      if (FORBIDDEN_FLAGS[flag]) {
        problems.at(manifest, at(`${field}[${i}]`), `${flag} puts a secret in the arguments: ${FORBIDDEN_FLAGS[flag]}`);
      }
      if (URL_WITH_PASSWORD.test(word)) {
        problems.at(manifest, at(`${field}[${i}]`), 'holds a URL with a password: arguments show in ps and the pod spec');
      }
    });
  }
}

function flagValue(args, flag) {
  const i = args.indexOf(flag);
  if (i >= 0 && i + 1 < args.length) return args[i + 1];
  const joined = args.find((a) => typeof a === 'string' && a.startsWith(`${flag}=`));
  return joined ? joined.slice(flag.length + 1) : undefined;
}

// The NoveltyGrid role of a container (its first argument when the image's entrypoint is used).
export function roleOf(container) {
  if (container.command) return undefined;
  const first = (container.args ?? [])[0];
  return ['coordinator', 'worker', 'serve-sim'].includes(first) ? first : undefined;
}

function checkRole(manifest, pod, c, at, problems) {
  const role = roleOf(c.container);
  if (role !== 'coordinator' && role !== 'worker') return;
  const args = c.container.args;
  const redis = (c.container.env ?? []).find((e) => e?.name === 'NOVELTYGRID_REDIS_URL');
  if (!redis?.valueFrom?.secretKeyRef) {
    problems.at(manifest, at('env'), `the ${role} needs NOVELTYGRID_REDIS_URL from a Secret (valueFrom.secretKeyRef)`);
  }
  const probes = role === 'coordinator' ? ['startupProbe', 'readinessProbe'] : ['readinessProbe'];
  for (const probe of probes) {
    if (!c.container[probe]?.grpc) {
      problems.at(manifest, at(probe), `the ${role} needs a gRPC ${probe} (grpc.health.v1)`);
    }
  }
  const metrics = flagValue(args, '--metrics-listen');
  const metricsPort = (c.container.ports ?? []).find((p) => p?.name === 'metrics');
  if (!metrics) {
    problems.at(manifest, at('args'), `the ${role} needs --metrics-listen HOST:PORT (Prometheus /metrics)`);
  } else if (!metricsPort || String(metricsPort.containerPort) !== metrics.split(':').pop()) {
    problems.at(manifest, at('ports'), `needs a port named metrics with containerPort ${metrics.split(':').pop()} (--metrics-listen)`);
  }
  if (role === 'worker') {
    const drainMs = Number(flagValue(args, '--drain-grace-ms') ?? DEFAULT_DRAIN_MS);
    const grace = pod.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_S;
    if (!(grace >= drainMs / 1000 + 10)) {
      problems.at(manifest, join(pod.path, 'terminationGracePeriodSeconds'),
        `is ${grace} s but the worker drains for --drain-grace-ms ${drainMs} and exits within 5 s more: ` +
        `needs at least ${drainMs / 1000 + 10} s (drain + 5 s + 5 s margin)`);
    }
  }
}

// Checks every pod template of MANIFEST.
export function checkPods(manifest, problems) {
  for (const pod of podTemplates(manifest)) {
    const spec = pod.spec;
    if (spec.automountServiceAccountToken !== false) {
      problems.at(manifest, join(pod.path, 'automountServiceAccountToken'),
        'must be false: no pod here talks to the Kubernetes API');
    }
    for (const host of ['hostNetwork', 'hostPID', 'hostIPC']) {
      if (spec[host] === true) problems.at(manifest, join(pod.path, host), 'must not be true');
    }
    (spec.volumes ?? []).forEach((v, i) => {
      if (v?.hostPath) problems.at(manifest, join(pod.path, `volumes[${i}].hostPath`), 'hostPath volumes are not allowed');
    });
    const containers = containersOf(spec, pod.path);
    if (!containers.length) problems.at(manifest, join(pod.path, 'containers'), 'has no container');
    for (const c of containers) {
      const at = (field) => join(c.path, field);
      checkImage(manifest, c, at, problems);
      checkSecurity(manifest, pod, c, at, problems);
      checkTmp(manifest, pod, c, at, problems);
      checkResources(manifest, c, at, problems);
      checkSecrets(manifest, c, at, problems);
      checkRole(manifest, pod, c, at, problems);
      if (c.kind === 'containers' && LONG_RUNNING.has(manifest.kind) && !c.container.readinessProbe) {
        problems.at(manifest, at('readinessProbe'), 'is missing: long-running containers report readiness');
      }
    }
  }
}
