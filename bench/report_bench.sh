#!/usr/bin/env bash
# report.html at the size issue 15 names: a 1,000-unit AidanBench sweep (2 simulated models x 5
# temperatures x 100 questions, ~26,000 answers) plus the quickstart. Runs each sweep once, then times
# `noveltygrid report DIR` (which rebuilds summary.json, leaderboard.txt and report.html from the rows
# files) REPEATS times and prints the median, with report.html's size. Figures go to BENCHMARKS.md
# ("Report").
#
#   bash bench/report_bench.sh [REPEATS]      # default 5
#
# Needs build/noveltygrid (scripts/setup.sh). Simulated models: the numbers measure the engine.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NOVELTYGRID_BIN:-build/noveltygrid}
REPEATS=${1:-5}
work=${KEEP_DIR:-$(mktemp -d)}
trap '[ -n "${KEEP_DIR:-}" ] || rm -rf "$work"' EXIT

python3 bench/question_variants.py 100 > "$work/questions.jsonl"
cat > "$work/sweep-1000.yaml" <<YAML
name: report-1000
seed: 7
models: [sim:explorer, sim:steady]
temperatures: [0.4, 0.55, 0.7, 0.85, 1.0]
judge: sim:judge
embedder: lexical
concurrency: 256
aidanbench:
  questions: $work/questions.jsonl
  preset: reference-2025
YAML

measure() {  # $1: label, $2: config
  "$BIN" run "$2" --out "$work/$1" --quiet
  local times=()
  for _ in $(seq "$REPEATS"); do
    local start end
    start=$(date +%s.%N)
    "$BIN" report "$work/$1" > /dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  local units answers
  units=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run'].get('units', '?'))" "$work/$1/summary.json")
  answers=$( (cat "$work/$1/answers.jsonl" "$work/$1/samples.jsonl" 2>/dev/null || true) | wc -l)
  echo "$1: $units units, $answers rows; report.html $(stat -c %s "$work/$1/report.html") bytes;" \
    "\`report\` median ${median}s of $REPEATS (all: ${times[*]})"
}

measure quickstart examples/quickstart.yaml
measure sweep-1000 "$work/sweep-1000.yaml"
