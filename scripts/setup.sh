#!/usr/bin/env bash
# Installs what the build needs (Debian 12 packages) when it is missing, then configures and builds
# build/noveltygrid. Safe to run again: it only installs and rebuilds what changed.
#   BUILD_DIR   build folder (default build)
#   BUILD_TYPE  CMake build type (default RelWithDebInfo)
#   CMAKE_ARGS  extra CMake arguments
#   BUILD_TARGETS  what to build (default: everything, tests included; the quickstart builds noveltygrid)
#   NOVELTYGRID_SETUP_MINIMAL=1  only what building and running the noveltygrid binary needs (the quickstart
#       sets it): none of the test-only packages (gtest/gmock, benchmark, clang-format, openssl, redis-server,
#       git), and a build folder configured here for the first time gets -DNOVELTYGRID_TESTS=OFF
#       -DNOVELTYGRID_DEBUG_INFO=OFF (no tests; -g0: the same code, a third less compile time). Both stay in
#       the CMake cache: a full set-up (without it, as scripts/test.sh does) turns the tests on and keeps -g0,
#       so nothing already built is built again; CMAKE_ARGS=-DNOVELTYGRID_DEBUG_INFO=ON gives -g (rebuilds
#       once). A minimal set-up leaves an existing folder's settings alone. CMAKE_ARGS come last and win.
#   NOVELTYGRID_SETUP_SDK=1  also node/npm and the packages of the OpenAI and Anthropic SDK tests and of the
#                            peer test (tests/peers/mock_llm; scripts/test.sh sets it)
#   NOVELTYGRID_SETUP_BROWSER=1  also Debian's chromium, node/npm and tests/browser's packages (playwright-core),
#                                for the report's browser test and scripts/report_screenshot.sh (scripts/test.sh
#                                sets it)
#   NOVELTYGRID_SETUP_K8S=1  also kubectl (Debian's kubernetes-client when none is on PATH), node/npm and
#                            tests/k8s's packages, for scripts/validate_k8s.sh (scripts/test.sh sets it)
#   NOVELTYGRID_SETUP_CLANG=1  also clang and its sanitizer/libFuzzer runtimes (the sanitizer stages of
#                              scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

minimal=${NOVELTYGRID_SETUP_MINIMAL:-0}
# What configuring and building the noveltygrid target needs (cpp-httplib too: sim_server's CMakeLists
# requires it, and its feature macros are part of the compile flags).
packages=(build-essential cmake pkg-config
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
          libhiredis-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev zlib1g-dev
          libcpp-httplib-dev prometheus-cpp-dev libjemalloc-dev)
# What only the tests and the developer's tools need (clang-format alone is ~33 MB of LLVM); openssl: the
# TLS integration test makes its certificates with it; redis-server: the tests start their own.
if [ "$minimal" != 1 ]; then
  packages+=(git redis-server libgtest-dev libgmock-dev libbenchmark-dev clang-format openssl)
fi
if [ "${NOVELTYGRID_SETUP_CLANG:-0}" = 1 ]; then packages+=(clang libclang-rt-14-dev); fi
# NOVELTYGRID_SETUP_K8S=1: kubectl (for `kubectl kustomize`) and node, to check deploy/k8s offline
# (scripts/validate_k8s.sh); Debian's kubernetes-client only when no kubectl is on PATH.
with_k8s=${NOVELTYGRID_SETUP_K8S:-0}
if [ "$with_k8s" = 1 ] && ! command -v kubectl >/dev/null; then packages+=(kubernetes-client); fi
with_browser=${NOVELTYGRID_SETUP_BROWSER:-0}
if [ "$with_browser" = 1 ]; then packages+=(chromium); fi  # test-only: opens report.html headless
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node + npm run the OpenAI SDK test (tests/sdk) and the report's browser test (tests/browser), set up
# only for the tests (scripts/test.sh sets both flags); a node already on PATH (nvm, nodesource) is kept.
with_sdk=${NOVELTYGRID_SETUP_SDK:-0}
if [ "$with_sdk" = 1 ] || [ "$with_browser" = 1 ] || [ "$with_k8s" = 1 ]; then command -v node >/dev/null || missing+=(nodejs npm); fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm_ci DIR WHAT: DIR's node_modules from its committed lock file, when missing or older than the lock;
# a failure here fails the setup (WHAT names who needs it).
npm_ci() {
  local dir=$1 what=$2
  if [ -d "$dir/node_modules" ] && [ ! "$dir/package-lock.json" -nt "$dir/node_modules" ]; then return 0; fi
  echo "setup: npm ci in $dir" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2 ||
    { echo "setup: FAILED: npm ci in $dir ($what needs it; is the npm registry reachable?)" >&2; exit 1; }
}
if [ "$with_sdk" = 1 ]; then npm_ci tests/sdk/openai_node "the OpenAI SDK test"; fi
if [ "$with_sdk" = 1 ]; then npm_ci tests/sdk/anthropic_node "the Anthropic SDK test"; fi
if [ "$with_sdk" = 1 ]; then npm_ci tests/peers/mock_llm "the peer test against @dwmkerr/mock-llm"; fi
if [ "$with_browser" = 1 ]; then npm_ci tests/browser "the report's browser test"; fi
if [ "$with_k8s" = 1 ]; then npm_ci tests/k8s "the manifest validation (scripts/validate_k8s.sh)"; fi

build_dir=${BUILD_DIR:-build}
jobs=$(nproc)
# A full set-up turns the tests on (the quickstart may have configured the folder without them); a
# minimal one leaves an existing folder as it is and configures a new one without tests and -g.
settings=(-DNOVELTYGRID_TESTS=ON)
if [ "$minimal" = 1 ]; then
  settings=()
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    settings=(-DNOVELTYGRID_TESTS=OFF -DNOVELTYGRID_DEBUG_INFO=OFF)
  fi
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "${settings[@]}" \
  ${CMAKE_ARGS:-} >/dev/null ||
  { echo "setup: FAILED: cmake could not configure $build_dir (its messages are above)" >&2; exit 1; }
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$jobs" "${targets[@]}"
