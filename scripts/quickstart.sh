#!/usr/bin/env bash
# Sets up, builds and runs the quickstart sweep (examples/quickstart.yaml: simulated models, AidanBench on
# the paper's 65 questions at three temperatures, NoveltyBench on 20 prompts of our own) into
# results/quickstart, then prints the leaderboards.
# Only what the binary needs: scripts/setup.sh installs the build packages without the test-only ones
# (NOVELTYGRID_SETUP_MINIMAL=1) and builds the noveltygrid target alone; a new build folder is configured
# without tests and without debug info (-g0: the same code, a third less compile time). scripts/test.sh
# later installs the rest, turns the tests on and builds them in the same folder without rebuilding the
# binary. For a -g build: CMAKE_ARGS=-DNOVELTYGRID_DEBUG_INFO=ON bash scripts/quickstart.sh (or test.sh).
# Time to the leaderboard on a fresh machine: BENCHMARKS.md (bench/fresh_quickstart.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
NOVELTYGRID_SETUP_MINIMAL=${NOVELTYGRID_SETUP_MINIMAL:-1} BUILD_TARGETS=${BUILD_TARGETS:-noveltygrid} \
  bash scripts/setup.sh  # the binary only; scripts/test.sh builds the rest
exec ./build/noveltygrid run examples/quickstart.yaml --out "${OUT:-results/quickstart}" "$@"
