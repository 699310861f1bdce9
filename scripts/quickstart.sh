#!/usr/bin/env bash
# Sets up, builds and runs the quickstart sweep (examples/quickstart.yaml: simulated models, the paper's
# 65 questions, three temperatures) into results/quickstart, then prints the leaderboard.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec ./build/noveltygrid run examples/quickstart.yaml --out "${OUT:-results/quickstart}" "$@"
