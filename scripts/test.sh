#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit and integration tests) with ctest.
# Tests read the published datasets from ../shared/data and start their own redis-server and
# noveltygrid processes on free loopback ports.
#   SANITIZE=1 (default under CI) also builds the unit tests with ASan/UBSan into build-asan and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
NOVELTYGRID_SETUP_SDK=1 bash scripts/setup.sh
if [ ! -d ../shared/data ]; then
  echo "test: ../shared/data is missing; the tests read the published runs and datasets from there" >&2
  exit 1
fi
jobs=$(nproc)
status=0
# Formatting is part of the suite: unformatted C++ fails it (the message prints the fix command).
bash scripts/format.sh || status=1
(cd build && ctest --output-on-failure -j "$jobs" --timeout 600 "$@") || status=$?

if [ "${SANITIZE:-${CI:-0}}" != 0 ] && [ "${SANITIZE:-1}" != 0 ]; then
  echo "test: unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan)" >&2
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNOVELTYGRID_SANITIZE=ON >/dev/null
  cmake --build build-asan -j "$jobs" --target $(cat build-asan/unit_test_targets.txt) >/dev/null
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     ctest --output-on-failure -j "$jobs" --timeout 600 -L unit) || status=$?
fi
exit $status
