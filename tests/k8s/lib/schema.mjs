// Schema validation of one object against the OpenAPI schemas that npm's kubernetes-models packages
// ship: Kubernetes itself (kubernetes-models), KEDA (@kubernetes-models/keda) and prometheus-operator
// (@kubernetes-models/prometheus-operator). Their validate() checks types, enums, formats and required
// fields but, like the API server's schemas, lets unknown fields through; a misspelt field
// (`securityContex`) would silently do nothing in a cluster, so unknown fields are reported here too:
// the schema validator is run on a proxy of the object that records which properties it looks at, and
// any property of an object it inspected but never looked at is unknown to the schema. Objects the
// schema leaves free-form (labels, ConfigMap data, x-kubernetes-preserve-unknown-fields) are iterated
// or never inspected, and are not judged.
import { fieldPath } from './report.mjs';

// API group -> the package whose models cover it; everything else is core Kubernetes.
const GROUP_PACKAGES = {
  'keda.sh': '@kubernetes-models/keda',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

const modelCache = new Map();

// The model class for apiVersion/kind, or null when no installed package knows it.
async function modelFor(apiVersion, kind) {
  const key = `${apiVersion}/${kind}`;
  if (modelCache.has(key)) return modelCache.get(key);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const pkg = GROUP_PACKAGES[group] ?? 'kubernetes-models';
  let model = null;
  try {
    const module = await import(`${pkg}/${apiVersion}/${kind}`);
    model = typeof module[kind] === 'function' ? module[kind] : null;
  } catch (e) {
    if (!['ERR_MODULE_NOT_FOUND', 'ERR_PACKAGE_PATH_NOT_EXPORTED'].includes(e.code)) throw e;
  }
  modelCache.set(key, model);
  return model;
}

// Wraps ROOT in proxies that record, per plain object, the properties read and whether its keys were
// listed. Returns the proxy and the records (path -> {object, read, listed}).
function tracked(root) {
  const records = new Map();
  const proxies = new WeakMap();
  const wrap = (value, path) => {
    if (value === null || typeof value !== 'object') return value;
    if (proxies.has(value)) return proxies.get(value);
    const record = { object: value, read: new Set(), listed: false };
    if (!Array.isArray(value)) records.set(path, record);
    const look = (key) => { if (typeof key === 'string') record.read.add(key); };
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        look(key);
        const child = Reflect.get(target, key, receiver);
        return typeof key === 'string' && Object.hasOwn(target, key) ? wrap(child, `${path}/${key}`) : child;
      },
      has(target, key) { look(key); return Reflect.has(target, key); },
      getOwnPropertyDescriptor(target, key) { look(key); return Reflect.getOwnPropertyDescriptor(target, key); },
      ownKeys(target) { record.listed = true; return Reflect.ownKeys(target); },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  return { proxy: wrap(root, ''), records };
}

// An ajv error as "field: message".
function describe(error) {
  let path = error.instancePath;
  let message = error.message ?? error.keyword;
  if (error.keyword === 'required') {
    path = `${path}/${error.params.missingProperty}`;
    message = 'is required';
  } else if (error.keyword === 'enum') {
    message = `must be one of ${error.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { field: fieldPath(path), message };
}

// What the API server would decode: Secret data is base64 in which, as for Go's decoder, line breaks
// do not count (kustomize v5 wraps long values).
function normalized(object) {
  if (object.kind !== 'Secret' || !object.data || typeof object.data !== 'object') return object;
  const data = Object.fromEntries(Object.entries(object.data)
    .map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]));
  return { ...object, data };
}

// Validates MANIFEST's object against its schema; reports to PROBLEMS. Returns false when no schema
// knows the object's apiVersion and kind.
export async function validateSchema(manifest, problems) {
  const { apiVersion, kind } = manifest.object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    problems.at(manifest, typeof apiVersion !== 'string' ? 'apiVersion' : 'kind',
      'is missing or not a string: every object needs apiVersion and kind');
    return false;
  }
  const model = await modelFor(apiVersion, kind);
  if (!model) {
    problems.at(manifest, 'apiVersion',
      `no schema for ${apiVersion} ${kind} in kubernetes-models, @kubernetes-models/keda or ` +
      '@kubernetes-models/prometheus-operator (a misspelt kind or apiVersion, or a new kind for tests/k8s)');
    return false;
  }
  const { proxy, records } = tracked(normalized(manifest.object));
  const seen = new Set();
  try {
    model.prototype.validate.call(proxy);
  } catch (e) {
    if (!Array.isArray(e.errors)) throw e;
    for (const error of e.errors) {
      const { field, message } = describe(error);
      const line = `${field}: ${message}`;
      if (seen.has(line)) continue;  // anyOf branches repeat themselves
      seen.add(line);
      problems.at(manifest, field, `${message} (schema of ${apiVersion} ${kind})`);
    }
  }
  for (const [path, record] of records) {
    if (record.listed || record.read.size === 0) continue;  // a map, or free-form
    for (const key of Object.keys(record.object)) {
      if (!record.read.has(key)) {
        problems.at(manifest, fieldPath(`${path}/${key}`),
          `unknown field "${key}" (not in the schema of ${apiVersion} ${kind}; misspelt or misplaced?)`);
      }
    }
  }
  return true;
}
