#!/usr/bin/env bash
# Checks deploy/k8s offline, without a cluster: renders every overlay (and tools/) with
# `kubectl kustomize`, validates each render with tests/k8s/validate_manifests.mjs (Kubernetes, KEDA and
# prometheus-operator schemas, unknown fields, and the project's policy: hardening, pinned images, no
# secret values, NetworkPolicies, Redis persistence, autoscaling), validates the plain files under
# overlays/*/alternatives/, and runs the validator's self-test (broken copies of the sim render must
# each fail, naming the object and the field).
#
# Needs:
#   kubectl 1.14 or newer, for `kubectl kustomize` (KUBECTL=/path/to/kubectl picks another one). The
#     kustomizations are written for kustomize v2.0.3 and newer, so both of these render them (checked):
#       Debian 12's kubectl: `apt-get install kubernetes-client` (kubectl 1.20.2, kustomize v2.0.3 inside)
#       kubectl 1.21+ from upstream (1.32.4 with kustomize v5.5.0 checked; it warns that `bases` and
#         `patches*` are deprecated -- those warnings are filtered out here)
#   node 18 or newer and npm: tests/k8s's packages, installed here with `npm ci` from the committed lock
#     when node_modules is missing or older than the lock.
#
# Usage: bash scripts/validate_k8s.sh [--keep DIR] [--skip-missing-tools]
#   --keep DIR             leave the renders in DIR
#   --skip-missing-tools   exit 77 (ctest's skip) instead of 2 when a tool is missing, unless $CI is set
#                          (the k8s_manifests test passes it)
# Exit codes: 0 every render valid and the self-test passed; 1 a problem; 2 a tool is missing (77 above).
set -euo pipefail
cd "$(dirname "$0")/.."

keep=""
missing_exit=2
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
    --skip-missing-tools) if [ -z "${CI:-}" ]; then missing_exit=77; fi; shift ;;
    *) echo "validate_k8s: unknown argument '$1' (usage: validate_k8s.sh [--keep DIR] [--skip-missing-tools])" >&2
       exit 2 ;;
  esac
done
kubectl=${KUBECTL:-kubectl}
setup_hint="NOVELTYGRID_SETUP_K8S=1 bash scripts/setup.sh installs what is missing"
fail() { echo "validate_k8s: $*; $setup_hint" >&2; exit $missing_exit; }

command -v "$kubectl" >/dev/null ||
  fail "kubectl not found: install it (Debian 12: apt-get install kubernetes-client) or set KUBECTL=/path/to/kubectl"
command -v node >/dev/null && command -v npm >/dev/null ||
  fail "node and npm not found (Debian 12: apt-get install nodejs npm)"
version_json=$("$kubectl" version --client -o json 2>/dev/null) || fail "'$kubectl version --client' failed"
read -r kubectl_version minor kustomize_version < <(node -e '
  const v = JSON.parse(process.argv[1]);
  const minor = parseInt(v.clientVersion.minor, 10);
  console.log(v.clientVersion.gitVersion, minor,
    v.kustomizeVersion ?? (minor < 21 ? "v2.0.3(embedded)" : "unknown"));' "$version_json")
[ "$minor" -ge 14 ] || fail "kubectl $kubectl_version has no 'kubectl kustomize': needs kubectl 1.14 or newer"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] || fail "node $(node --version) is too old: tests/k8s needs node 18 or newer"
echo "validate_k8s: kubectl $kubectl_version, kustomize $kustomize_version, node $(node --version)"

if [ ! -d tests/k8s/node_modules ] || [ tests/k8s/package-lock.json -nt tests/k8s/node_modules ]; then
  echo "validate_k8s: npm ci in tests/k8s" >&2
  (cd tests/k8s && npm ci --no-audit --no-fund --loglevel=error) >&2 ||
    fail "npm ci in tests/k8s failed (is the npm registry reachable?)"
fi

# The sim overlay's sweep is examples/http-sim.yaml: kustomize reads nothing outside the overlay's
# folder, so it holds a copy, which must not drift.
status=0
if ! cmp -s examples/http-sim.yaml deploy/k8s/overlays/sim/http-sim.yaml; then
  echo "validate_k8s: deploy/k8s/overlays/sim/http-sim.yaml differs from examples/http-sim.yaml;" \
       "copy it: cp examples/http-sim.yaml deploy/k8s/overlays/sim/" >&2
  status=1
fi

out=${keep:-$(mktemp -d)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
validator=tests/k8s/validate_manifests.mjs
# render DIR NAME: `kubectl kustomize DIR` into $out/NAME.yaml, without the known deprecation warnings.
render() {
  local dir=$1 name=$2
  if ! "$kubectl" kustomize "$dir" >"$out/$name.yaml" 2>"$out/$name.stderr"; then
    echo "validate_k8s: kubectl kustomize $dir failed:" >&2
    cat "$out/$name.stderr" >&2
    return 1
  fi
  grep -v -E "^# Warning: '(bases|patchesStrategicMerge|patchesJson6902)' is deprecated" "$out/$name.stderr" >&2 || true
}

for dir in deploy/k8s/overlays/*/ deploy/k8s/tools/*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  render "$dir" "$name" || { status=1; continue; }
  flags=()
  if [ "$name" = sim ]; then flags+=(--allow-demo-secrets); fi
  node "$validator" "${flags[@]}" "$out/$name.yaml" || status=1
done
alternatives=(deploy/k8s/overlays/*/alternatives/*.yaml)
if [ -e "${alternatives[0]}" ]; then node "$validator" "${alternatives[@]}" || status=1; fi

if [ -s "$out/sim.yaml" ]; then
  node "$validator" --self-test --allow-demo-secrets "$out/sim.yaml" || status=1
else
  echo "validate_k8s: no sim render to self-test" >&2
  status=1
fi
[ -z "$keep" ] || echo "validate_k8s: renders kept in $out"
if [ $status = 0 ]; then echo "validate_k8s: all renders valid"; else echo "validate_k8s: FAILED" >&2; fi
exit $status
