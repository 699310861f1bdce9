#!/usr/bin/env bash
# One coordinator under a simulated cluster (issue 18, item 3): a real redis-server and a real
# `noveltygrid coordinator --redis` on a 100,000-unit plan (4 simulated models x 25 temperatures x 1,000
# questions), loaded by build/coordinator_load -- WORKERS fake workers x LOOPS loops, each loop a step every
# STEP_MS and a commit after ~ITERATIONS steps, no model calls. Prints units/s, RPCs/s, latency per RPC
# kind and the CPU of the coordinator, Redis and the generator over the measured window.
#
#   bash bench/coordinator_load.sh                        # 50 workers x 512 loops
#   WORKERS=10 LOOPS=512 DURATION_S=30 bash bench/coordinator_load.sh
#
# Knobs (environment): WORKERS LOOPS STEP_MS ITERATIONS WARMUP_S DURATION_S QUESTIONS TEMPERATURES,
# COORDINATOR_CPUS (taskset list for the coordinator, default 0; empty: not pinned), LOAD_CPUS (the
# generator and Redis, default 1), EXTRA="--flag ..." (more coordinator_load flags, e.g. --ramp-ms), KEEP_DIR=DIR
# (keep the files), PERF=1 (perf record the coordinator over the window into KEEP_DIR or the work dir;
# PERF_CALLGRAPH=dwarf for callers inside libraries built without frame pointers, default fp),
# COORDINATOR_ENV="VAR=VALUE ..." (the coordinator's environment, e.g. LD_PRELOAD of another malloc),
# LOAD_NICE (the generator's nice, default 10, so that Redis on the same cpu is not kept waiting).
# Needs build/noveltygrid and build/coordinator_load (cmake --build build --target noveltygrid coordinator_load).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${NOVELTYGRID_BIN:-build/noveltygrid}
LOAD=${LOAD_BIN:-build/coordinator_load}
WORKERS=${WORKERS:-50}
LOOPS=${LOOPS:-512}
STEP_MS=${STEP_MS:-200}
ITERATIONS=${ITERATIONS:-15}
WARMUP_S=${WARMUP_S:-15}
DURATION_S=${DURATION_S:-60}
QUESTIONS=${QUESTIONS:-1000}
TEMPERATURES=${TEMPERATURES:-25}
COORDINATOR_CPUS=${COORDINATOR_CPUS-0}
LOAD_CPUS=${LOAD_CPUS-1}
work=${KEEP_DIR:-$(mktemp -d)}
mkdir -p "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -n "${KEEP_DIR:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
# taskset prefixes (taskset execs the command, so $! is the pinned process itself).
pin_coordinator=()
pin_load=()
if command -v taskset > /dev/null; then
  [ -z "$COORDINATOR_CPUS" ] || pin_coordinator=(taskset -c "$COORDINATOR_CPUS")
  [ -z "$LOAD_CPUS" ] || pin_load=(taskset -c "$LOAD_CPUS")
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Redis: loopback only, no snapshots or AOF (the store's durability is the deployment's choice; a fork
# every minute would measure the machine, not the coordinator).
redis_port=$(free_port)
"${pin_load[@]}" redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
  > "$work/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
for _ in $(seq 100); do redis-cli -p "$redis_port" ping > /dev/null 2>&1 && break; sleep 0.05; done

python3 bench/question_variants.py "$QUESTIONS" > "$work/questions.jsonl"
temps=$(python3 -c "import sys; n=int(sys.argv[1]); print(', '.join(f'{i/(n-1) if n>1 else 0.7:.4g}' for i in range(n)))" "$TEMPERATURES")
cat > "$work/sweep.yaml" <<YAML
name: coordinator-load
seed: 7
models: [sim:explorer, sim:steady, sim:chaotic, sim:collapse]
temperatures: [$temps]
judge: sim:judge
embedder: lexical
aidanbench:
  questions: $work/questions.jsonl
  preset: reference-2025
YAML

export NOVELTYGRID_TOKEN=bench-coordinator-load-token
"${pin_coordinator[@]}" env ${COORDINATOR_ENV:-} "$BIN" coordinator --config "$work/sweep.yaml" --listen 127.0.0.1:0 --out "$work/out" \
  --redis "redis://127.0.0.1:$redis_port" > "$work/coordinator.log" 2>&1 &
coordinator_pid=$!
pids+=("$coordinator_pid")
addr=
for _ in $(seq 600); do
  addr=$(grep -o 'listening on [0-9.:]*' "$work/coordinator.log" | awk '{print $3}' || true)
  [ -n "$addr" ] && break
  kill -0 "$coordinator_pid" 2> /dev/null || { echo "the coordinator exited:"; tail -5 "$work/coordinator.log"; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "the coordinator did not start listening"; exit 1; }

units=$((QUESTIONS * TEMPERATURES * 4))
echo "coordinator_load: $units-unit plan, coordinator on cpu(s) ${COORDINATOR_CPUS:-any}, generator and redis on ${LOAD_CPUS:-any};" \
  "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
if [ -n "${PERF:-}" ]; then
  (sleep "$WARMUP_S"; perf record --call-graph "${PERF_CALLGRAPH:-fp}" -F 499 -p "$coordinator_pid" -o "$work/perf.data" -- sleep "$DURATION_S" \
    > "$work/perf.log" 2>&1) &
  perf_pid=$!
fi
# shellcheck disable=SC2086
"${pin_load[@]}" nice -n "${LOAD_NICE:-10}" "$LOAD" --coordinator "$addr" --workers "$WORKERS" --loops "$LOOPS" --step-ms "$STEP_MS" \
  --iterations "$ITERATIONS" --warmup-s "$WARMUP_S" --duration-s "$DURATION_S" \
  --coordinator-pid "$coordinator_pid" --redis-pid "$redis_pid" --json "$work/load.json" ${EXTRA:-}
echo "coordinator RSS at the end: $(( $(awk '/VmRSS/ {print $2}' "/proc/$coordinator_pid/status") / 1024 )) MiB;" \
  "peak $(( $(awk '/VmHWM/ {print $2}' "/proc/$coordinator_pid/status") / 1024 )) MiB"
if [ -n "${perf_pid:-}" ]; then wait "$perf_pid" || true; echo "perf data: $work/perf.data"; fi
