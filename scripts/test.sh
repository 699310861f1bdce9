#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit and integration tests) with ctest.
# Tests read the published datasets from ../shared/data and start their own redis-server and
# noveltygrid processes on free loopback ports.
#   SANITIZE=1 (default under CI) also runs the sanitizer stages, built with clang:
#     build-asan  the unit tests under ASan + UBSan, then every libFuzzer target for FUZZ_SECONDS each
#                 (scripts/fuzz.sh; a crash, hang or leak fails the run and keeps the reproducer)
#     build-tsan  the tests of concurrent code (THREADS in their CMakeLists) under ThreadSanitizer
#   Both clang builds also check the thread-safety annotations (-Wthread-safety).
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=0
if [ "${SANITIZE:-${CI:-0}}" != 0 ] && [ "${SANITIZE:-1}" != 0 ]; then sanitize=1; fi
# CI builds the main tree without debug info (a third less compile time; the same code). Elsewhere the
# build folder keeps what it has: -g, unless scripts/quickstart.sh configured it first (then -g0, and
# nothing it built is built again here); CMAKE_ARGS=-DNOVELTYGRID_DEBUG_INFO=ON gives -g back. The full
# set-up (NOVELTYGRID_SETUP_MINIMAL=0) installs the test packages and turns the tests on.
if [ "${CI:-0}" != 0 ]; then export CMAKE_ARGS="${CMAKE_ARGS:-} -DNOVELTYGRID_DEBUG_INFO=OFF"; fi
NOVELTYGRID_SETUP_MINIMAL=0 NOVELTYGRID_SETUP_SDK=1 NOVELTYGRID_SETUP_BROWSER=1 NOVELTYGRID_SETUP_K8S=1 \
  NOVELTYGRID_SETUP_CLANG=$sanitize bash scripts/setup.sh
if [ ! -d ../shared/data ]; then
  echo "test: ../shared/data is missing; the tests read the published runs and datasets from there" >&2
  exit 1
fi
jobs=$(nproc)
status=0
current="set-up and the main build"  # the stage running, for a failure that stops the script
failures=()  # "STAGE: TEST" for every failed test, repeated at the end (CI keeps only the output's tail)
flaky=()     # tests that failed and then passed when run again
# Under CI a failed test is run once more (ctest --repeat until-pass:2) so that one unlucky run of a
# timing-sensitive integration test does not hide the rest; every such test is still named at the end
# as FLAKY, with its failing output above. RETRY=0 turns this off; RETRY=1 turns it on outside CI.
retry=()
if [ "${RETRY:-${CI:-0}}" != 0 ]; then retry=(--repeat until-pass:2); fi

# run_ctest DIR STAGE ARGS...: ctest in DIR; its failed tests are added to failures, those that passed
# only when run again to flaky.
run_ctest() {
  local dir=$1 stage=$2 rc=0 name log; shift 2
  log="$dir/Testing/ctest-output.log"
  mkdir -p "$dir/Testing"
  rm -f "$dir/Testing/Temporary/LastTestsFailed.log"  # a run that fails before testing leaves none
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 600 "${retry[@]}" "$@") 2>&1 | tee "$log" ||
    rc=${PIPESTATUS[0]}
  local failed=()
  if [ "$rc" != 0 ]; then
    # ctest names the failed tests in Testing/Temporary/LastTestsFailed.log, one "NUMBER:NAME" a line.
    # It names skipped tests (GTEST_SKIP) there too; they are not failures.
    local skipped
    skipped=" $(sed -nE 's/^ *([0-9]+\/[0-9]+ )?Test +#[0-9]+: ([^ ]+) .*\*\*\*Skipped.*/\2/p' "$log" | tr '\n' ' ') "
    while IFS= read -r name; do
      [[ "$skipped" == *" ${name#*:} "* ]] || failed+=("${name#*:}")
    done < <(cat "$dir/Testing/Temporary/LastTestsFailed.log" 2>/dev/null || echo "0:ctest exited with $rc")
    [ "${#failed[@]}" -gt 0 ] || failed=("ctest exited with $rc")
    for name in "${failed[@]}"; do failures+=("$stage: $name"); done
  fi
  # A test with a failed run (its result line ends ***Failed, ***Timeout, ***Exception...) that is not
  # among the failed ones passed on its second run. ***Skipped is a GTEST_SKIP (a test that does not
  # apply to the build, e.g. under TSan), not a failure.
  while IFS= read -r name; do
    [[ " ${failed[*]} " == *" $name "* ]] || flaky+=("$stage: $name")
  done < <(sed -nE '/\*\*\*Skipped/d; s/^ *([0-9]+\/[0-9]+ )?Test +#[0-9]+: ([^ ]+) .*\*\*\*.*/\2/p' "$log" | sort -u)
  return "$rc"
}
# finish: names every failure again, last, and exits with the run's status -- on every way out, a
# failed sanitizer build (set -e) included, as the EXIT trap.
finish() {
  local rc=$?
  # An exit with other than the run's status is a command that failed under set -e (a build).
  if [ "$rc" != "$status" ]; then failures+=("stopped in: $current (exit status $rc)"); fi
  [ "$status" != 0 ] || status=$rc
  if [ "${#flaky[@]}" -gt 0 ]; then
    echo "test: FLAKY (${#flaky[@]}): failed, then passed when run again; the failing output is above:" >&2
    printf '  %s\n' "${flaky[@]}" >&2
  fi
  if [ "${#failures[@]}" -gt 0 ]; then
    echo "test: FAILED (${#failures[@]}); the output of each is above, under its name:" >&2
    printf '  %s\n' "${failures[@]}" >&2
  fi
  exit "$status"
}
trap finish EXIT
# Formatting is part of the suite: unformatted C++ fails it (the message prints the fix command).
bash scripts/format.sh || { status=1; failures+=("format: scripts/format.sh"); }
run_ctest build "main suite" "$@" || status=$?
[ "$sanitize" = 1 ] || exit "$status"

# clang_build DIR SANITIZER [CMAKE_ARGS...]: configures DIR as a clang Debug build with that sanitizer.
clang_build() {
  local dir=$1 sanitizer=$2; shift 2
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DNOVELTYGRID_SANITIZE="$sanitizer" \
    ${CLANG_CMAKE_ARGS:-} "$@" >/dev/null
}
stage() {
  current=$1
  echo "test: $* ($(date +%T))" >&2
}

stage "unit tests under AddressSanitizer and UndefinedBehaviorSanitizer, and the fuzz targets (build-asan)"
# File by file here (no unity batches): the check that each library file includes what it uses.
clang_build build-asan address -DNOVELTYGRID_FUZZ=ON -DNOVELTYGRID_UNITY=OFF
cmake --build build-asan -j "$jobs" --target $(cat build-asan/unit_test_targets.txt build-asan/fuzz_targets.txt) \
  >/dev/null
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run_ctest build-asan "AddressSanitizer" -L 'unit|fuzz' || status=$?
stage "fuzzing every parser for ${FUZZ_SECONDS:-20} s each (scripts/fuzz.sh)"
bash scripts/fuzz.sh build-asan || { status=$?; failures+=("fuzz: scripts/fuzz.sh (its FAILED lines above)"); }

stage "tests of concurrent code under ThreadSanitizer (build-tsan)"
clang_build build-tsan thread
cmake --build build-tsan -j "$jobs" --target $(cat build-tsan/thread_test_targets.txt) >/dev/null
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan/suppressions.txt" \
  run_ctest build-tsan "ThreadSanitizer" -L threads || status=$?
stage "done"
exit "$status"
