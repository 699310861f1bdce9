// Reading rendered manifests and reporting problems. Every problem names the file, the object
// (Kind namespace/name) and the field, as a path a reader can find in `kubectl kustomize` output:
//   overlays/sim.yaml: Deployment noveltygrid/noveltygrid-worker: spec.template.spec.containers[0].image:
//   "noveltygrid:latest" is not pinned ...
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

// One parsed Kubernetes object and where it came from.
export class Manifest {
  constructor(file, index, object) {
    this.file = file;
    this.index = index;  // position among the file's documents, from 0
    this.object = object;
  }

  get kind() { return this.object?.kind ?? '(no kind)'; }
  get name() { return this.object?.metadata?.name ?? '(no name)'; }
  get namespace() { return this.object?.metadata?.namespace; }
  get labels() { return this.object?.metadata?.labels ?? {}; }

  // "Deployment noveltygrid/noveltygrid-worker", or "Namespace noveltygrid" for cluster-scoped ones.
  get id() { return `${this.kind} ${this.namespace ? `${this.namespace}/` : ''}${this.name}`; }
}

// Parses every YAML document of FILE (multi-document, `---` separated). YAML syntax errors are
// problems of the file; empty documents (a trailing `---`) are skipped.
export function loadManifests(file, problems) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    problems.add(file, null, '', `cannot read the file: ${e.message}`);
    return [];
  }
  const manifests = [];
  parseAllDocuments(text).forEach((doc, index) => {
    for (const error of doc.errors) {
      problems.add(file, null, `document ${index + 1}`, `YAML syntax: ${error.message.split('\n')[0]}`);
    }
    if (doc.errors.length) return;
    const object = doc.toJS({ maxAliasCount: 100 });
    if (object === null || object === undefined) return;
    if (typeof object !== 'object' || Array.isArray(object)) {
      problems.add(file, null, `document ${index + 1}`, 'is not a Kubernetes object (a YAML mapping)');
      return;
    }
    manifests.push(new Manifest(file, index, object));
  });
  return manifests;
}

// "/spec/template/spec/containers/0/image" or ['spec', 'containers', 0] -> "spec.containers[0]".
export function fieldPath(segments) {
  const parts = typeof segments === 'string' ? segments.split('/').filter((s) => s !== '') : segments;
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number' || /^\d+$/.test(part)) out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

// Joins a base path and a relative one: join('spec.template.spec', 'containers[0]').
export function join(base, rest) {
  if (!base) return rest;
  if (!rest) return base;
  return rest.startsWith('[') ? base + rest : `${base}.${rest}`;
}

// Collects problems; printed at the end, sorted by file and object in input order.
export class Problems {
  constructor() {
    this.list = [];
    this.notes = [];
  }

  // manifest: a Manifest or null (a problem of the file itself).
  add(file, manifest, field, message) {
    this.list.push({ file, object: manifest?.id ?? null, field, message });
  }

  // A problem of MANIFEST at FIELD (a path relative to the object).
  at(manifest, field, message) {
    this.add(manifest.file, manifest, field, message);
  }

  note(file, message) {
    if (!this.notes.some((n) => n.file === file && n.message === message)) this.notes.push({ file, message });
  }

  get count() { return this.list.length; }

  format(p) {
    const where = [p.object, p.field].filter((s) => s).join(': ');
    return `${p.file}: ${where ? `${where}: ` : ''}${p.message}`;
  }

  lines() { return this.list.map((p) => this.format(p)); }
}
