#!/usr/bin/env bash
# The 100,000-unit sweep of issue 13 as a coordinator + one worker process: 4 simulated models x 25
# temperatures x 1,000 questions (the paper's 65, each asked under 16 numbered variants, the first 1,000
# kept). Measures the coordinator's peak RSS and the wall time of the sweep, then re-opens the finished
# sweep (a second `coordinator` on the same folder: every unit committed, the summary rewritten, the
# untouched rows files kept) and once more with the rows files written again from the journal. Figures
# go to BENCHMARKS.md ("Sweep memory").
#
#   bash bench/sweep_memory.sh [QUESTIONS] [TEMPERATURES]    # defaults 1000 25
#
# Needs build/noveltygrid (scripts/setup.sh). Simulated models: the numbers measure the engine, not an LLM.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NOVELTYGRID_BIN:-build/noveltygrid}
QUESTIONS=${1:-1000}
TEMPERATURES=${2:-25}
CONCURRENCY=${CONCURRENCY:-512}
work=${KEEP_DIR:-$(mktemp -d)}
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP_DIR:-}" ] || rm -rf "$work"' EXIT

# Questions: the paper's 65 under numbered variants.
python3 bench/question_variants.py "$QUESTIONS" > "$work/questions.jsonl"
temps=$(python3 -c "import sys; n=int(sys.argv[1]); print(', '.join(f'{i/(n-1) if n>1 else 0.7:.4g}' for i in range(n)))" "$TEMPERATURES")
cat > "$work/sweep.yaml" <<YAML
name: sweep-memory
seed: 7
models: [sim:explorer, sim:steady, sim:chaotic, sim:collapse]
temperatures: [$temps]
judge: sim:judge
embedder: lexical
concurrency: $CONCURRENCY
aidanbench:
  questions: $work/questions.jsonl
  preset: reference-2025
YAML

export NOVELTYGRID_TOKEN=bench-sweep-memory-token
run_coordinator() {  # $1: label
  /usr/bin/time -f "%e %M %U %S" -o "$work/$1.time" "$BIN" coordinator --config "$work/sweep.yaml" \
    --listen 127.0.0.1:0 --out "$work/out" > "$work/$1.log" 2>&1 &
  coordinator=$!
  for _ in $(seq 600); do
    addr=$(grep -o 'listening on [0-9.:]*' "$work/$1.log" | awk '{print $3}' || true)
    [ -n "$addr" ] && break
    if ! kill -0 $coordinator 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -n "${addr:-}" ] && [ "$1" = sweep ]; then
    /usr/bin/time -f "%U %S" -o "$work/worker.time" "$BIN" worker --coordinator "$addr" --concurrency "$CONCURRENCY" \
      > "$work/worker.log" 2>&1 || true
  fi
  wait $coordinator || { echo "coordinator failed:"; tail -5 "$work/$1.log"; exit 1; }
  read -r seconds kib user sys < "$work/$1.time"
  echo "$1: ${seconds}s, coordinator peak RSS $((kib / 1024)) MiB, coordinator CPU ${user}s user ${sys}s sys"
  if [ "$1" = sweep ]; then
    read -r user sys < "$work/worker.time"
    echo "worker CPU: ${user}s user ${sys}s sys"
  fi
}

units=$((QUESTIONS * TEMPERATURES * 4))
echo "sweep: $units units ($QUESTIONS questions x $TEMPERATURES temperatures x 4 simulated models), $CONCURRENCY loops"
run_coordinator sweep
answers=$(wc -l < "$work/out/answers.jsonl")
echo "answers: $answers lines, answers.jsonl $(du -m "$work/out/answers.jsonl" | cut -f1) MiB, journal $(du -mc "$work/out/.noveltygrid"/journal.* | tail -1 | cut -f1) MiB"
md5=$(md5sum < "$work/out/answers.jsonl")
run_coordinator reopen
[ "$(md5sum < "$work/out/answers.jsonl")" = "$md5" ] && echo "re-open: answers.jsonl byte-identical" || { echo "re-open changed answers.jsonl"; exit 1; }
# The same with the rows files written again from the journal (as after a new build of the program).
rm -f "$work/out/.noveltygrid/rows.stamp"
run_coordinator rewrite
[ "$(md5sum < "$work/out/answers.jsonl")" = "$md5" ] && echo "rewrite: answers.jsonl byte-identical" || { echo "rewrite changed answers.jsonl"; exit 1; }
