// Project policy for the objects of one rendered overlay taken together:
//   secrets     no Secret carries literal values, except -- with --allow-demo-secrets, for the sim
//               overlay -- one labelled noveltygrid.io/demo=true whose every value says "demo";
//               no ConfigMap holds an api_key or a URL with a password;
//   references  ConfigMaps that pods mount or read exist in the render (Secrets and claims may be made
//               by hand: listed as notes); names are unique; namespaced objects have a namespace;
//   redis       the state Redis is a StatefulSet with a volume claim on its data dir, and its config
//               (with its includes) has appendonly yes, maxmemory-policy noeviction and a maxmemory of
//               at most 80% of the container's memory limit (room for the AOF rewrite's fork);
//   scaling     a KEDA ScaledObject scales an existing Deployment to zero (minReplicaCount 0) on the
//               coordinator's pending units, and that Deployment leaves replicas to it; the workers
//               have a PodDisruptionBudget.
import { join } from './report.mjs';
import { containersOf, parseImage, podTemplates } from './pods.mjs';
import { selects } from './network.mjs';

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition',
  'PersistentVolume', 'StorageClass', 'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;
const WORKER_LABELS = { 'app.kubernetes.io/name': 'noveltygrid-worker' };
const MAX_REDIS_SHARE = 0.8;

function checkSecret(m, problems, options) {
  const values = { ...(m.object.data ?? {}), ...(m.object.stringData ?? {}) };
  const decoded = (key) => (m.object.stringData && Object.hasOwn(m.object.stringData, key)
    ? String(m.object.stringData[key]) : Buffer.from(String(values[key]), 'base64').toString('utf8'));
  const field = (key) => `${m.object.stringData && Object.hasOwn(m.object.stringData, key) ? 'stringData' : 'data'}.${key}`;
  const demo = options.allowDemoSecrets && m.labels['noveltygrid.io/demo'] === 'true';
  for (const key of Object.keys(values)) {
    if (!demo) {
      problems.at(m, field(key), 'a literal secret value in the manifests: create this Secret out of band ' +
        '(README "Running on Kubernetes"); only the sim overlay has demo values, labelled noveltygrid.io/demo=true');
    } else if (!/demo/i.test(decoded(key))) {
      problems.at(m, field(key), 'a demo Secret whose value does not say "demo": demo values must look like demo values');
    }
  }
}

function checkConfigMap(m, problems) {
  for (const [key, value] of Object.entries(m.object.data ?? {})) {
    String(value).split('\n').forEach((line, i) => {
      if (URL_WITH_PASSWORD.test(line)) problems.at(m, `data.${key}`, `line ${i + 1} holds a URL with a password`);
      if (/^\s*api_key\s*:/.test(line)) problems.at(m, `data.${key}`, `line ${i + 1}: api_key: in a config; use api_key_file or api_key_env`);
    });
  }
}

// Kubernetes quantity ("1536Mi", "8Gi", "2G", "512") in bytes; NaN when unreadable.
export function quantityBytes(q) {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  if (!match) return NaN;
  const scale = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(match[1]) * (scale[match[2]] ?? 1);
}

// Redis memory size ("1200mb", "6gb", "100m") in bytes; NaN when unreadable.
export function redisBytes(text) {
  const match = /^(\d+)(b|k|kb|m|mb|g|gb)?$/i.exec(String(text));
  if (!match) return NaN;
  const scale = { b: 1, k: 1e3, kb: 2 ** 10, m: 1e6, mb: 2 ** 20, g: 1e9, gb: 2 ** 30 };
  return Number(match[1]) * (scale[(match[2] ?? 'b').toLowerCase()]);
}

// Redis config directives of FILE (directive -> value, the last one winning), following `include`
// into the other files that MOUNTS (the container's ConfigMap volumes) can read.
function redisConfig(file, mounts, seen = new Set()) {
  const settings = {};
  const text = mounts.read(file);
  if (text === undefined || seen.has(file)) return settings;
  seen.add(file);
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [directive, ...rest] = line.split(/\s+/);
    if (directive.toLowerCase() === 'include') Object.assign(settings, redisConfig(rest.join(' '), mounts, seen));
    else settings[directive.toLowerCase()] = rest.join(' ');
  }
  return settings;
}

function checkRedis(m, byKey, problems) {
  for (const pod of podTemplates(m)) {
    for (const c of containersOf(pod.spec, pod.path)) {
      if (!/(^|\/)redis$/.test(parseImage(String(c.container.image ?? '')).repository)) continue;
      const at = (field) => join(c.path, field);
      const mounts = c.container.volumeMounts ?? [];
      if (m.kind !== 'StatefulSet') problems.at(m, 'kind', 'Redis holds state: run it as a StatefulSet with a volume claim');
      const claims = (m.object.spec?.volumeClaimTemplates ?? []).map((t) => t?.metadata?.name);
      if (!mounts.some((v) => v.mountPath === '/data' && claims.includes(v.name))) {
        problems.at(m, at('volumeMounts'), 'Redis needs its data dir /data on a volumeClaimTemplates volume');
      }
      // The files of the container's ConfigMap volumes, by absolute path.
      const files = { read: (path) => {
        for (const mount of mounts) {
          const volume = (pod.spec.volumes ?? []).find((v) => v?.name === mount.name);
          const cm = volume?.configMap && byKey.get(`ConfigMap/${m.namespace}/${volume.configMap.name}`);
          if (cm && path.startsWith(`${mount.mountPath}/`)) return cm.object.data?.[path.slice(mount.mountPath.length + 1)];
        }
        return undefined;
      } };
      const words = [...(c.container.command ?? []), ...(c.container.args ?? [])].join(' ');
      const confPath = /\S+\.conf\b/.exec(words)?.[0];
      const settings = confPath ? redisConfig(confPath, files) : {};
      if (!confPath || files.read(confPath) === undefined) {
        problems.at(m, at('args'), 'cannot find the redis.conf it starts with among the rendered ConfigMaps');
        continue;
      }
      if (settings.appendonly !== 'yes') problems.at(m, at('args'), `${confPath}: appendonly must be yes (state survives restarts)`);
      if (settings['maxmemory-policy'] !== 'noeviction') {
        problems.at(m, at('args'), `${confPath}: maxmemory-policy must be noeviction (state must never be evicted)`);
      }
      const limit = quantityBytes(c.container.resources?.limits?.memory);
      const max = redisBytes(settings.maxmemory);
      if (!(max > 0)) {
        problems.at(m, at('args'), `${confPath}: maxmemory must be set (noeviction without it grows until the OOM killer)`);
      } else if (!(max <= MAX_REDIS_SHARE * limit)) {
        problems.at(m, at('resources.limits.memory'), `is ${c.container.resources?.limits?.memory}; Redis maxmemory ` +
          `${settings.maxmemory} must stay within ${MAX_REDIS_SHARE * 100}% of it (an AOF rewrite forks)`);
      }
    }
  }
}

function checkScaling(manifests, byKey, problems) {
  for (const m of manifests.filter((x) => x.kind === 'ScaledObject')) {
    const target = m.object.spec?.scaleTargetRef ?? {};
    const deployment = byKey.get(`${target.kind ?? 'Deployment'}/${m.namespace}/${target.name}`);
    if (!deployment) {
      problems.at(m, 'spec.scaleTargetRef', `scales ${target.kind ?? 'Deployment'} ${target.name}, which is not in the render`);
    } else if (deployment.object.spec?.replicas !== undefined) {
      problems.at(deployment, 'spec.replicas', `is set, but ${m.id} owns the replica count (remove it in the overlay)`);
    }
    if (m.object.spec?.minReplicaCount !== 0) {
      problems.at(m, 'spec.minReplicaCount', 'must be 0: workers scale to zero when the sweep is done');
    }
    const queries = (m.object.spec?.triggers ?? []).filter((t) => t?.type === 'prometheus').map((t) => t.metadata?.query ?? '');
    if (!queries.some((q) => q.includes('noveltygrid_units_pending'))) {
      problems.at(m, 'spec.triggers', 'needs a prometheus trigger on noveltygrid_units_pending (the work left)');
    }
  }
  const workers = manifests.filter((m) => m.kind === 'Deployment' && selects({ matchLabels: WORKER_LABELS }, m.labels));
  for (const w of workers) {
    const pdb = manifests.some((m) => m.kind === 'PodDisruptionBudget' && m.namespace === w.namespace &&
      selects(m.object.spec?.selector, podTemplates(w)[0]?.metadata.labels ?? {}));
    if (!pdb) problems.at(w, 'metadata.name', 'the workers need a PodDisruptionBudget');
  }
}

// Records in EXTERNAL (kind name -> users) the Secrets and claims that pods use and the render lacks.
function checkReferences(m, byKey, problems, external) {
  for (const pod of podTemplates(m)) {
    const need = (kind, name, field) => {
      if (!name || byKey.has(`${kind}/${m.namespace}/${name}`)) return;
      if (kind === 'ConfigMap') {
        problems.at(m, field, `ConfigMap ${name} is not in the render (a missing generator?)`);
      } else {
        const key = `${kind} ${m.namespace}/${name}`;
        external.set(key, new Set([...(external.get(key) ?? []), m.id]));
      }
    };
    (pod.spec.volumes ?? []).forEach((v, i) => {
      const at = join(pod.path, `volumes[${i}]`);
      need('ConfigMap', v?.configMap?.name, at);
      need('Secret', v?.secret?.secretName, at);
      need('PersistentVolumeClaim', v?.persistentVolumeClaim?.claimName, at);
    });
    for (const c of containersOf(pod.spec, pod.path)) {
      (c.container.env ?? []).forEach((e, i) => {
        need('ConfigMap', e?.valueFrom?.configMapKeyRef?.name, join(c.path, `env[${i}]`));
        need('Secret', e?.valueFrom?.secretKeyRef?.name, join(c.path, `env[${i}]`));
      });
    }
  }
}

// Checks the objects of one render together. OPTIONS: {allowDemoSecrets}.
export function checkResources(manifests, problems, options) {
  const byKey = new Map();
  const external = new Map();
  for (const m of manifests) {
    const key = `${m.kind}/${m.namespace}/${m.name}`;
    if (byKey.has(key)) problems.at(m, 'metadata.name', `a second ${m.kind} with this name`);
    byKey.set(key, m);
    if (!CLUSTER_SCOPED.has(m.kind) && !m.namespace) problems.at(m, 'metadata.namespace', 'is missing');
  }
  for (const m of manifests) {
    if (m.kind === 'Secret') checkSecret(m, problems, options);
    if (m.kind === 'ConfigMap') checkConfigMap(m, problems);
    checkRedis(m, byKey, problems);
    checkReferences(m, byKey, problems, external);
  }
  checkScaling(manifests, byKey, problems);
  for (const [what, users] of external) {
    problems.note(manifests[0].file, `${what} must exist before applying (not in the render; used by ${[...users].join(', ')})`);
  }
}
