#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (unit and integration tests) with ctest.
# Tests read the published datasets from ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ ! -d ../shared/data ]; then
  echo "test: ../shared/data is missing; the tests read the published runs and datasets from there" >&2
  exit 1
fi
cd build
exec ctest --output-on-failure -j "$(nproc)" --timeout 600 "$@"
