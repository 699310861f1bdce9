#!/usr/bin/env bash
# Tails cut (issue 18, item 4): one sweep through serve-sim at 100 ms per call, three times --
#   fault-free      serve-sim without faults
#   faults          --fault-rate 0.02 --faults timeout: 2% of requests get no reply; the server holds them
#                   longer than the provider's timeout_s, so each costs the client its whole timeout
#   faults+hedge    the same faults, the provider with hedge_after_ms (or HEDGE_AFTER=p95: adaptive): a
#                   duplicate after that wait, a second when neither has answered after another
# and prints each wall time (`noveltygrid run`, process start to results written), the ratio to the
# fault-free time (target for the hedged run: <= 1.15), the hedges summary.json counts, and whether
# answers.jsonl and the leaderboard are byte-identical to the fault-free run's.
#
#   bash bench/hedge_bench.sh        # every knob below is an environment variable
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-$ROOT/build/noveltygrid}
[[ -x "$BIN" ]] || { echo "hedge_bench: no noveltygrid binary at $BIN (build it or set BIN=)" >&2; exit 2; }

LATENCY_MS=${LATENCY_MS:-100}
FAULT_RATE=${FAULT_RATE:-0.02}
TIMEOUT_S=${TIMEOUT_S:-10}            # the provider's timeout_s: what a hung request costs without hedging
HEDGE_AFTER_MS=${HEDGE_AFTER_MS:-150}
HEDGE_AFTER=${HEDGE_AFTER:-}          # e.g. p95: adaptive (then HEDGE_AFTER_MS is its floor; empty: none)
CONCURRENCY=${CONCURRENCY:-20}
MODELS=${MODELS:-"sim:explorer, sim:steady, sim:chaotic"}
TEMPS=${TEMPS:-0.7}
QUESTIONS=${QUESTIONS:-$ROOT/datasets/aidanbench/questions-paper-65.jsonl}
SIM_SEED=${SIM_SEED:-1}

WORK=$(mktemp -d /tmp/ng-hedge-bench.XXXXXX)
SIM_PID=""
cleanup() {
  [[ -n "$SIM_PID" ]] && { kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; }
  if [[ -z "${KEEP_WORK:-}" ]]; then rm -rf "$WORK"; else echo "hedge_bench: kept $WORK" >&2; fi
}
trap cleanup EXIT

now() { date +%s.%N; }

# Starts serve-sim with the given extra flags; sets SIM_PID and SIM_ADDR.
start_sim() {
  "$BIN" serve-sim --listen 127.0.0.1:0 --latency-ms "$LATENCY_MS" --seed "$SIM_SEED" \
    --timeout-hold-ms $((TIMEOUT_S * 1000 * 10)) "$@" >"$WORK/sim.log" 2>&1 &
  SIM_PID=$!
  SIM_ADDR=""
  for _ in $(seq 300); do
    SIM_ADDR=$(grep -o 'listening on [^ ]*' "$WORK/sim.log" 2>/dev/null | head -1 | awk '{print $3}') || true
    [[ -n "$SIM_ADDR" ]] && return 0
    sleep 0.1
  done
  echo "hedge_bench: serve-sim did not start:" >&2; cat "$WORK/sim.log" >&2; exit 1
}
stop_sim() { kill "$SIM_PID"; wait "$SIM_PID" 2>/dev/null || true; SIM_PID=""; }

write_config() {  # FILE HEDGE(0/1)
  {
    cat <<EOF
name: hedge-bench
seed: 7
models: [$MODELS]
temperatures: [$TEMPS]
judge: sim:judge
embedder: lexical
concurrency: $CONCURRENCY
aidanbench:
  questions: $QUESTIONS
  preset: reference-2025
providers:
  sim:
    base_url: http://$SIM_ADDR/v1
    timeout_s: $TIMEOUT_S
EOF
    if [[ "$2" == 1 ]]; then
      echo "    hedge_after_ms: $HEDGE_AFTER_MS"
      if [[ -n "$HEDGE_AFTER" ]]; then echo "    hedge_after: $HEDGE_AFTER"; fi
    fi
  } >"$1"
}

declare -A SECONDS_OF
run() {  # NAME HEDGE(0/1) SERVE-SIM FLAGS...
  local name=$1 hedge=$2
  shift 2
  start_sim "$@"
  write_config "$WORK/$name.yaml" "$hedge"
  local start end
  start=$(now)
  "$BIN" run "$WORK/$name.yaml" --out "$WORK/$name" --quiet >"$WORK/$name.log" 2>&1 ||
    { echo "hedge_bench: the $name sweep failed:" >&2; tail -20 "$WORK/$name.log" >&2; exit 1; }
  end=$(now)
  curl -fsS "http://$SIM_ADDR/stats" >"$WORK/$name-stats.json" 2>/dev/null || echo '{}' >"$WORK/$name-stats.json"
  stop_sim
  SECONDS_OF[$name]=$(echo "$end - $start" | bc -l)
  echo "hedge_bench: $name: ${SECONDS_OF[$name]} s" >&2
}

run fault-free 0
run faults 0 --fault-rate "$FAULT_RATE" --faults timeout
run faults+hedge 1 --fault-rate "$FAULT_RATE" --faults timeout

echo "hedge_bench: $MODELS x $(wc -l <"$QUESTIONS") questions x [$TEMPS], concurrency $CONCURRENCY, serve-sim" \
  "$LATENCY_MS ms, timeout_s $TIMEOUT_S, hedge_after_ms $HEDGE_AFTER_MS${HEDGE_AFTER:+, hedge_after $HEDGE_AFTER}"
printf '%-14s %9s %7s %8s %7s %8s %9s  %s\n' run seconds ratio faults hedges retries requests identical
for name in fault-free faults faults+hedge; do
  python3 - "$WORK" "$name" "${SECONDS_OF[$name]}" "${SECONDS_OF[fault-free]}" <<'EOF'
import json, sys
work, name, secs, base = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
calls = json.load(open(f"{work}/{name}/summary.json"))["calls"]
stats = json.load(open(f"{work}/{name}-stats.json"))
hedges = sum(c.get("hedges", 0) for c in calls.values())
retries = sum(c.get("retries", 0) for c in calls.values())
same = all(open(f"{work}/{name}/{f}", "rb").read() == open(f"{work}/fault-free/{f}", "rb").read()
           for f in ("answers.jsonl", "leaderboard.txt"))
print(f"{name:<14} {secs:9.2f} {secs / base:7.3f} {stats.get('faults_injected', '-'):>8} {hedges:>7} {retries:>8} "
      f"{stats.get('chat', 0) + stats.get('embeddings', 0):>9}  {'yes' if same else 'NO'}")
EOF
done
