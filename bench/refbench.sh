#!/usr/bin/env bash
# The reference workload (issue 18, item 1): 3 models x the 63 questions of
# ../shared/data/aidanbench/questions-2025-63.jsonl x temperature 0.7, reference prompt templates, against
# ../shared/tools/fake_llm_server.mjs at 100 ms per call (answer i of a question is a fresh idea while
# i < K = 5 + sha1(question) mod 11, then it repeats: every loop runs exactly K + 1 iterations; 2,001
# answers, 189 loops). `noveltygrid run` at concurrency 20 (the reference's thread count) and with every
# loop in flight, each timed from process start to exit (results written), REPEAT times; the median is
# compared with its floor:
#   all loops   the longest loop's iterations x 2 calls x latency (generate, then judge and embed at once)
#   20 loops    the makespan of the 189 loops (K + 1 iterations x 2 x latency each) placed longest first
#               on 20 slots (LPT); plan order would give more (printed too)
# Prints a table and writes bench/results/refbench-latest.json.
#
#   bash bench/refbench.sh                 # REPEAT=3 LATENCY_MS=100 EMBED_WAIT_MS= (provider default)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/../shared" && pwd)}
BIN=${BIN:-}
if [[ -z "$BIN" ]]; then
  for c in "$ROOT/build-bench/noveltygrid" "$ROOT/build/noveltygrid"; do
    if [[ -x "$c" ]]; then BIN=$c; break; fi
  done
fi
[[ -x "${BIN:-}" ]] || { echo "refbench: no noveltygrid binary (build build/ or set BIN=)" >&2; exit 2; }
command -v node >/dev/null || { echo "refbench: needs node for $SHARED/tools/fake_llm_server.mjs" >&2; exit 2; }
LATENCY_MS=${LATENCY_MS:-100}
REPEAT=${REPEAT:-3}
EMBED_WAIT_MS=${EMBED_WAIT_MS:-}
QUESTIONS=$SHARED/data/aidanbench/questions-2025-63.jsonl
TEMPLATES=$SHARED/data/aidanbench/prompts-reference.json

WORK=$(mktemp -d /tmp/ng-refbench.XXXXXX)
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
node "$SHARED/tools/fake_llm_server.mjs" "$PORT" "$LATENCY_MS" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/stats" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/stats" >/dev/null || { echo "refbench: the fake server did not start" >&2; exit 1; }

write_config() {  # FILE CONCURRENCY
  cat >"$1" <<YAML
name: refbench
seed: 7
models: [fake:model-a, fake:model-b, fake:model-c]
temperatures: [0.7]
judge: fake:judge
embedder: fake:embed
concurrency: $2
providers:
  fake:
    base_url: http://127.0.0.1:$PORT/v1
$([[ -n "$EMBED_WAIT_MS" ]] && echo "    embed_wait_ms: $EMBED_WAIT_MS")
aidanbench:
  questions: $QUESTIONS
  preset: reference-2025
  templates: $TEMPLATES
YAML
}

# Seconds from process start to exit of one `run`; checks the answers it wrote.
run_once() {  # CONFIG OUT
  local start end
  start=$(date +%s.%N)
  "$BIN" run "$1" --out "$2" >"$2.log" 2>&1 || { echo "refbench: run failed:" >&2; cat "$2.log" >&2; exit 1; }
  end=$(date +%s.%N)
  local answers
  answers=$(wc -l <"$2/answers.jsonl")
  [[ "$answers" == 2001 ]] || { echo "refbench: $2 has $answers answers, expected 2001" >&2; exit 1; }
  python3 -c "print(f'{$end - $start:.3f}')"
}

declare -A TIMES
for conc in 20 189; do
  write_config "$WORK/c$conc.yaml" "$conc"
  TIMES[$conc]=""
  for i in $(seq "$REPEAT"); do
    t=$(run_once "$WORK/c$conc.yaml" "$WORK/out-$conc-$i")
    TIMES[$conc]+="$t "
    echo "refbench: concurrency $conc run $i: $t s" >&2
  done
done
cmp -s "$WORK/out-20-1/answers.jsonl" "$WORK/out-189-1/answers.jsonl" ||
  { echo "refbench: answers differ between concurrency 20 and 189" >&2; exit 1; }

mkdir -p "$ROOT/bench/results"
python3 - "$QUESTIONS" "$LATENCY_MS" "${TIMES[20]}" "${TIMES[189]}" "$ROOT/bench/results/refbench-latest.json" \
  "${EMBED_WAIT_MS:-default}" <<'PY'
import hashlib, heapq, json, statistics, sys
questions_file, latency_ms, t20, tall, out, embed_wait = sys.argv[1:7]
step = 2 * float(latency_ms) / 1000  # generate, then judge and embed at once
qs = [json.loads(line)["question"] for line in open(questions_file)]
loops = [(5 + int(hashlib.sha1(q.encode()).hexdigest(), 16) % 11 + 1) * step for q in qs] * 3
def makespan(jobs, slots):
    heap = [0.0] * slots
    for job in jobs:
        heapq.heappush(heap, heapq.heappop(heap) + job)
    return max(heap)
floors = {"20": makespan(sorted(loops, reverse=True), 20), "189": max(loops)}
plan_order = makespan(loops, 20)
rows = {}
for conc, times in (("20", t20), ("189", tall)):
    ts = [float(t) for t in times.split()]
    med = statistics.median(ts)
    rows[conc] = {"times_s": ts, "median_s": med, "floor_s": round(floors[conc], 3),
                  "over_floor": round(med / floors[conc] - 1, 4)}
print(f"reference workload: 189 loops, 2001 answers, {latency_ms} ms per call, embed_wait_ms {embed_wait}")
print(f"{'loops in flight':>16} {'median s':>9} {'floor s':>8} {'over floor':>11}  runs")
for conc, r in rows.items():
    print(f"{conc:>16} {r['median_s']:>9.2f} {r['floor_s']:>8.2f} {100 * r['over_floor']:>10.1f}%  "
          + " ".join(f"{t:.2f}" for t in r["times_s"]))
print(f"(20 loops taken in plan order instead of longest first: {plan_order:.2f} s)")
json.dump({"latency_ms": float(latency_ms), "embed_wait_ms": embed_wait, "rows": rows,
           "plan_order_floor_20_s": round(plan_order, 3)}, open(out, "w"), indent=2)
PY
