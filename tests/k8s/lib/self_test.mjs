// --self-test: proves that the validator's checks bite. The sim overlay's render must pass; then each
// case below breaks one thing in a copy of it (written to a temporary folder), runs the validator on
// the copy as a separate process, and expects exit code 1 and a problem line naming the object and
// the field. Prints one line per case and "self-test: N passed, M failed" last; returns the exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

const NS = 'noveltygrid';

// The object KIND NAME, or the generated one named NAME-HASH (kustomize's generators).
function find(objects, kind, name) {
  const generated = new RegExp(`^${name}-[a-z0-9]{10}$`);
  const found = objects.find((o) => o?.kind === kind && o.metadata?.name === name) ??
    objects.find((o) => o?.kind === kind && generated.test(o.metadata?.name ?? ''));
  if (!found) throw new Error(`the input has no ${kind} ${name}: give --self-test the sim overlay's render`);
  return found;
}
const container = (objects, kind, name, index = 0) => {
  const o = find(objects, kind, name);
  return (o.spec.template ?? o).spec.containers[index];
};

// name, what it breaks, and the problem lines (regexps) it must produce.
const CASES = [
  {
    name: 'a container without securityContext',
    mutate: (o) => { delete container(o, 'Deployment', 'noveltygrid-worker').securityContext; },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.containers\[0\]\.securityContext: container "worker" has no securityContext/],
  },
  {
    name: 'an image :latest',
    mutate: (o) => { container(o, 'Job', 'noveltygrid-coordinator').image = 'noveltygrid:latest'; },
    expect: [/Job noveltygrid\/noveltygrid-coordinator: spec\.template\.spec\.containers\[0\]\.image: "noveltygrid:latest" is not pinned/],
  },
  {
    name: 'an untagged image',
    mutate: (o) => { container(o, 'StatefulSet', 'noveltygrid-redis').image = 'redis'; },
    expect: [/StatefulSet noveltygrid\/noveltygrid-redis: spec\.template\.spec\.containers\[0\]\.image: "redis" has no tag/],
  },
  {
    name: 'a field of the wrong type (replicas: "3")',
    mutate: (o) => { find(o, 'Deployment', 'noveltygrid-worker').spec.replicas = '3'; },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.replicas: must be integer \(schema of apps\/v1 Deployment\)/],
  },
  {
    name: 'a port of the wrong type (containerPort: "7070")',
    mutate: (o) => { container(o, 'Job', 'noveltygrid-coordinator').ports[0].containerPort = '7070'; },
    expect: [/Job noveltygrid\/noveltygrid-coordinator: spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort: must be integer/],
  },
  {
    name: 'a misspelt field (periodSecond)',
    mutate: (o) => { container(o, 'Deployment', 'noveltygrid-worker').readinessProbe.periodSecond = 5; },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.containers\[0\]\.readinessProbe\.periodSecond: unknown field "periodSecond"/],
  },
  {
    name: 'an unknown apiVersion',
    mutate: (o) => { find(o, 'Deployment', 'noveltygrid-serve-sim').apiVersion = 'apps/v1beta9'; },
    expect: [/Deployment noveltygrid\/noveltygrid-serve-sim: apiVersion: no schema for apps\/v1beta9 Deployment/],
  },
  {
    name: 'an initContainer without hardening or resources',
    mutate: (o) => {
      find(o, 'StatefulSet', 'noveltygrid-redis').spec.template.spec.initContainers = [
        { name: 'chown', image: 'busybox:1.36', command: ['chown', '-R', '999', '/data'] }];
    },
    expect: [/StatefulSet noveltygrid\/noveltygrid-redis: spec\.template\.spec\.initContainers\[0\]\.securityContext: container "chown" has no securityContext/,
      /StatefulSet noveltygrid\/noveltygrid-redis: spec\.template\.spec\.initContainers\[0\]\.resources\.limits\.memory: is missing/],
  },
  {
    name: 'a service account token mounted',
    mutate: (o) => { delete find(o, 'Deployment', 'noveltygrid-serve-sim').spec.template.spec.automountServiceAccountToken; },
    expect: [/Deployment noveltygrid\/noveltygrid-serve-sim: spec\.template\.spec\.automountServiceAccountToken: must be false/],
  },
  {
    name: 'a missing CPU limit',
    mutate: (o) => { delete container(o, 'Job', 'noveltygrid-coordinator').resources.limits.cpu; },
    expect: [/Job noveltygrid\/noveltygrid-coordinator: spec\.template\.spec\.containers\[0\]\.resources\.limits\.cpu: is missing/],
  },
  {
    name: 'a writable root filesystem',
    mutate: (o) => { container(o, 'Deployment', 'noveltygrid-worker').securityContext.readOnlyRootFilesystem = false; },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.containers\[0\]\.securityContext\.readOnlyRootFilesystem: must be true/],
  },
  {
    name: 'a Secret with a real-looking literal value',
    mutate: (o) => {
      o.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider-keys', namespace: NS },
        data: { openai: Buffer.from('sk-live-0123456789').toString('base64') } });
    },
    expect: [/Secret noveltygrid\/provider-keys: data\.openai: a literal secret value in the manifests/],
  },
  {
    name: 'the demo Secret without its demo label',
    mutate: (o) => { delete find(o, 'Secret', 'noveltygrid-token').metadata.labels; },
    expect: [/Secret noveltygrid\/noveltygrid-token-\w+: data\.token: a literal secret value in the manifests/],
  },
  {
    name: 'the Redis URL with its password in the arguments',
    mutate: (o) => { container(o, 'Deployment', 'noveltygrid-worker').args.push('--redis', 'redis://:hunter2@noveltygrid-redis:6379/0'); },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.containers\[0\]\.args\[\d+\]: --redis puts a secret in the arguments/,
      /Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.containers\[0\]\.args\[\d+\]: holds a URL with a password/],
  },
  {
    name: 'a termination grace shorter than the drain',
    mutate: (o) => { find(o, 'Deployment', 'noveltygrid-worker').spec.template.spec.terminationGracePeriodSeconds = 30; },
    expect: [/Deployment noveltygrid\/noveltygrid-worker: spec\.template\.spec\.terminationGracePeriodSeconds: is 30 s but the worker drains for --drain-grace-ms 30000/],
  },
  {
    name: 'the coordinator\'s gRPC port open to every source',
    mutate: (o) => { delete find(o, 'NetworkPolicy', 'noveltygrid-coordinator').spec.ingress[0].from; },
    expect: [/NetworkPolicy noveltygrid\/noveltygrid-coordinator: spec\.ingress\[0\]\.from: admits every source to Job noveltygrid\/noveltygrid-coordinator port grpc/],
  },
  {
    name: 'Redis reachable from serve-sim',
    mutate: (o) => {
      find(o, 'NetworkPolicy', 'noveltygrid-redis').spec.ingress[0].from.push(
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'noveltygrid-serve-sim' } } });
    },
    expect: [/NetworkPolicy noveltygrid\/noveltygrid-redis: spec\.ingress\[0\]\.from\[2\]: admits Deployment noveltygrid\/noveltygrid-serve-sim to StatefulSet noveltygrid\/noveltygrid-redis port redis/],
  },
  {
    name: 'the metrics port open to the whole namespace',
    mutate: (o) => { find(o, 'NetworkPolicy', 'noveltygrid-metrics').spec.ingress[0].from = [{ podSelector: {} }]; },
    expect: [/NetworkPolicy noveltygrid\/noveltygrid-metrics: spec\.ingress\[0\]\.from\[0\]: admits more than a labelled monitoring namespace/],
  },
  {
    name: 'worker egress to anywhere',
    mutate: (o) => { find(o, 'NetworkPolicy', 'noveltygrid-worker').spec.egress.push({}); },
    expect: [/NetworkPolicy noveltygrid\/noveltygrid-worker: spec\.egress\[3\]\.to: allows egress to every destination/],
  },
  {
    name: 'a pod no NetworkPolicy isolates',
    mutate: (o) => {
      for (const name of ['noveltygrid-default-deny', 'noveltygrid-serve-sim']) o.splice(o.indexOf(find(o, 'NetworkPolicy', name)), 1);
    },
    expect: [/Deployment noveltygrid\/noveltygrid-serve-sim: spec\.template\.metadata\.labels: no NetworkPolicy isolates this pod's ingress/],
  },
  {
    name: 'a KEDA ScaledObject with a number for threshold, that keeps one worker, on a Deployment with replicas',
    mutate: (o) => {
      o.push({ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'noveltygrid-worker', namespace: NS },
        spec: { scaleTargetRef: { name: 'noveltygrid-worker' }, minReplicaCount: 1,
          triggers: [{ type: 'prometheus', metadata: { serverAddress: 'http://prometheus:9090',
            query: 'sum(noveltygrid_units_pending)', threshold: 128 } }] } });
    },
    expect: [/ScaledObject noveltygrid\/noveltygrid-worker: spec\.triggers\[0\]\.metadata\.threshold: must be string \(schema of keda\.sh\/v1alpha1 ScaledObject\)/,
      /ScaledObject noveltygrid\/noveltygrid-worker: spec\.minReplicaCount: must be 0/,
      /Deployment noveltygrid\/noveltygrid-worker: spec\.replicas: is set, but ScaledObject noveltygrid\/noveltygrid-worker owns the replica count/],
  },
  {
    name: 'a PodMonitor with a misspelt field',
    mutate: (o) => {
      o.push({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PodMonitor', metadata: { name: 'noveltygrid', namespace: NS },
        spec: { selector: { matchLabels: { 'app.kubernetes.io/part-of': 'noveltygrid' } }, podMetricEndpoints: [{ port: 'metrics' }] } });
    },
    expect: [/PodMonitor noveltygrid\/noveltygrid: spec\.podMetricEndpoints: unknown field "podMetricEndpoints" \(not in the schema of monitoring\.coreos\.com\/v1 PodMonitor/],
  },
  {
    name: 'Redis that may evict state',
    mutate: (o) => {
      const cm = find(o, 'ConfigMap', 'noveltygrid-redis-config');
      cm.data['redis.conf'] = cm.data['redis.conf'].replace('maxmemory-policy noeviction', 'maxmemory-policy allkeys-lru');
    },
    expect: [/StatefulSet noveltygrid\/noveltygrid-redis: spec\.template\.spec\.containers\[0\]\.args: \/etc\/redis\/redis\.conf: maxmemory-policy must be noeviction/],
  },
  {
    name: 'Redis maxmemory above its memory limit',
    mutate: (o) => { container(o, 'StatefulSet', 'noveltygrid-redis').resources.limits.memory = '1Gi'; },
    expect: [/StatefulSet noveltygrid\/noveltygrid-redis: spec\.template\.spec\.containers\[0\]\.resources\.limits\.memory: is 1Gi; Redis maxmemory 1200mb must stay within 80% of it/],
  },
];

function run(script, flags, file) {
  const result = spawnSync(process.execPath, [script, ...flags, file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, errors: result.stderr.split('\n').filter((l) => l.startsWith('error: ')) };
}

export function selfTest(script, file, options) {
  const flags = options.allowDemoSecrets ? ['--allow-demo-secrets'] : [];
  const base = run(script, flags, file);
  if (base.status !== 0) {
    console.error(`self-test: the input itself does not pass (exit ${base.status}):\n${base.output}`);
    return 1;
  }
  const objects = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS()).filter((o) => o);
  const dir = mkdtempSync(path.join(tmpdir(), 'noveltygrid-k8s-self-test-'));
  let passed = 0;
  let failed = 0;
  try {
    CASES.forEach((c, i) => {
      const copy = structuredClone(objects);
      let why = '';
      try {
        c.mutate(copy);
        const broken = path.join(dir, `case-${String(i + 1).padStart(2, '0')}.yaml`);
        writeFileSync(broken, copy.map((o) => stringify(o)).join('---\n'));
        const result = run(script, flags, broken);
        const missing = c.expect.filter((re) => !result.errors.some((line) => re.test(line)));
        if (result.status !== 1) why = `exit ${result.status}, expected 1`;
        else if (missing.length) why = `no problem line matches ${missing.join(', ')}; got:\n  ${result.errors.join('\n  ')}`;
        else console.log(`self-test: ok   ${c.name}\n    ${result.errors.filter((l) => c.expect.some((re) => re.test(l))).join('\n    ')}`);
      } catch (e) {
        why = e.message;
      }
      if (why) {
        failed++;
        console.log(`self-test: FAIL ${c.name}: ${why}`);
      } else {
        passed++;
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`self-test: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}
