#!/usr/bin/env bash
# Sets up, builds and runs the quickstart sweep (examples/quickstart.yaml: simulated models, AidanBench on
# the paper's 65 questions at three temperatures, NoveltyBench on 20 prompts of our own) into
# results/quickstart, then prints the leaderboards.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_TARGETS=${BUILD_TARGETS:-noveltygrid} bash scripts/setup.sh  # the binary only; scripts/test.sh builds the rest
exec ./build/noveltygrid run examples/quickstart.yaml --out "${OUT:-results/quickstart}" "$@"
