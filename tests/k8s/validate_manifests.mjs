// Validates rendered Kubernetes manifests offline (no cluster): each object against the Kubernetes,
// KEDA and prometheus-operator schemas that npm's kubernetes-models packages ship, unknown fields
// included (lib/schema.mjs), then NoveltyGrid's policy: pod hardening, pinned images and no secrets in
// pod specs (lib/pods.mjs), NetworkPolicies (lib/network.mjs), Secrets, Redis persistence, autoscaling
// and references (lib/resources.mjs). Each FILE is one render (`kubectl kustomize OVERLAY`): the
// checks that span objects look within it. scripts/validate_k8s.sh renders every overlay and runs this.
//
// Usage:
//   node validate_manifests.mjs [--allow-demo-secrets] RENDERED.yaml...
//   node validate_manifests.mjs --self-test [--allow-demo-secrets] SIM_RENDER.yaml
// --allow-demo-secrets  accept Secrets labelled noveltygrid.io/demo=true whose values all say "demo"
//                       (the sim overlay's); any other literal Secret value is an error.
// --self-test           proves the checks bite: the render must pass, then broken copies of it (in a
//                       temporary folder) must each fail with the object and field named
//                       (lib/self_test.mjs); ends with "self-test: N passed, M failed".
// Exit codes: 0 valid; 1 problems found (or a self-test case failed); 2 usage or missing packages.
// Problems go to stderr, one a line: "FILE: Kind namespace/name: field: what is wrong".
import { fileURLToPath } from 'node:url';

const SETUP = 'cd tests/k8s && npm ci';

async function loadChecks() {
  try {
    return {
      report: await import('./lib/report.mjs'),
      schema: await import('./lib/schema.mjs'),
      pods: await import('./lib/pods.mjs'),
      network: await import('./lib/network.mjs'),
      resources: await import('./lib/resources.mjs'),
    };
  } catch (e) {
    if (e.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    console.error(`validate_manifests: ${e.message.split('\n')[0]}\nvalidate_manifests: install the packages first: ${SETUP}`);
    process.exit(2);
  }
}

// Validates FILES; returns the number of problems (printed).
export async function validate(files, options) {
  const { report, schema, pods, network, resources } = await loadChecks();
  const problems = new report.Problems();
  let objects = 0;
  for (const file of files) {
    const manifests = report.loadManifests(file, problems);
    objects += manifests.length;
    if (!manifests.length) problems.add(file, null, '', 'holds no Kubernetes object');
    for (const m of manifests) {
      await schema.validateSchema(m, problems);
      pods.checkPods(m, problems);
    }
    network.checkNetwork(manifests, problems, file);
    resources.checkResources(manifests, problems, options);
    const kinds = [...new Set(manifests.map((m) => m.kind))].sort();
    console.log(`validate_manifests: ${file}: ${manifests.length} objects (${kinds.join(', ')})`);
  }
  for (const n of problems.notes) console.log(`note: ${n.file}: ${n.message}`);
  for (const line of problems.lines()) console.error(`error: ${line}`);
  console.log(`validate_manifests: ${files.length} file(s), ${objects} objects, ${problems.count} problem(s)`);
  return problems.count;
}

async function main(argv) {
  const options = { allowDemoSecrets: false };
  let selfTest = false;
  const files = [];
  for (const arg of argv) {
    if (arg === '--allow-demo-secrets') options.allowDemoSecrets = true;
    else if (arg === '--self-test') selfTest = true;
    else if (arg.startsWith('-')) return usage(`unknown flag ${arg}`);
    else files.push(arg);
  }
  if (!files.length) return usage('no file given');
  if (selfTest) {
    if (files.length !== 1) return usage('--self-test takes one file: the sim overlay\'s render');
    const { selfTest: run } = await import('./lib/self_test.mjs');
    return run(fileURLToPath(import.meta.url), files[0], options);
  }
  return (await validate(files, options)) ? 1 : 0;
}

function usage(message) {
  console.error(`validate_manifests: ${message}\n` +
    'usage: node validate_manifests.mjs [--allow-demo-secrets] RENDERED.yaml...\n' +
    '       node validate_manifests.mjs --self-test [--allow-demo-secrets] SIM_RENDER.yaml');
  return 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
