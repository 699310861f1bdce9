#!/usr/bin/env bash
# One coordinator under a simulated cluster (issue 18, item 3): a real redis-server and a real
# `noveltygrid coordinator --redis` on a 100,000-unit plan (4 simulated models x 25 temperatures x 1,000
# questions), loaded by build/coordinator_load -- WORKERS fake workers x LOOPS loops, each loop a step every
# STEP_MS and a commit after ~ITERATIONS steps, no model calls. Prints units/s, RPCs/s, latency per RPC
# kind, the p99 of every call per second of the window (a stall shows as a few bad seconds) and the CPU
# of the coordinator, Redis and the generator over the measured window, and the coordinator's own timing
# of the same calls (its noveltygrid_rpc_duration_seconds, scraped from --metrics-listen), with how
# busy its committers were and how long they spent writing to Redis (noveltygrid_commit_{group,store}_seconds).
#
#   bash bench/coordinator_load.sh                        # 50 workers x 512 loops
#   WORKERS=10 LOOPS=512 DURATION_S=30 bash bench/coordinator_load.sh
#
# Knobs (environment): WORKERS LOOPS STEP_MS ITERATIONS WARMUP_S DURATION_S QUESTIONS TEMPERATURES,
# COORDINATOR_CPUS (taskset list for the coordinator, default 0; empty: not pinned), REDIS_CPUS (default 1),
# LOAD_CPUS (the generator, default empty: any cpu, at LOAD_NICE -- at 50 x 512 the generator and Redis
# needed ~1.05 cores with the blocking generator (~0.7 with the callback one, the default since
# 2026-12-07), and pinned beside Redis the generator queued its own calls; niced, what spills onto the
# coordinator's cpu yields to it), COORDINATOR_QUOTA=CORES (a CFS quota of CORES cores on the
# coordinator, as Kubernetes' limits.cpu enforces it -- its threads may run on any cpu, CORES x 100 ms of
# CPU per 100 ms period; needs the cgroup v1 cpu controller at /sys/fs/cgroup/cpu; with
# COORDINATOR_CPUS= for no pinning), EXTRA="--flag ..." (more coordinator_load flags, e.g. --ramp-ms), KEEP_DIR=DIR
# (keep the files), PERF=1 (perf record the coordinator over the window into KEEP_DIR or the work dir;
# PERF_CALLGRAPH=dwarf for callers inside libraries built without frame pointers, default fp),
# COORDINATOR_ENV="VAR=VALUE ..." (the coordinator's environment, e.g. LD_PRELOAD of another malloc),
# EXTRA="--client sync" (the blocking fake workers of the runs before 2026-12-07),
# EXTRA="--step-embeddings report" (each step with its 256-float embedding, ~1.4 KB, as a worker without
# a checkpoint store reports it, and every worker before 2026-12-07; the default is a worker with --redis:
# the embedding left to its store, ~0.4 KB),
# COORDINATOR_TIMING=0 (no --metrics-listen: the coordinator without its per-call timing, to see what the
# timing costs), LOAD_NICE (the generator's nice, default 19, so that Redis and the coordinator are not kept waiting;
# under a whole-bench quota of 1.45 cores nice 19 gave a median per-second p99 of 13-30 ms against 19-52 at
# nice 10, six runs each, interleaved -- BENCHMARKS.md).
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
REDIS_CPUS=${REDIS_CPUS-1}
LOAD_CPUS=${LOAD_CPUS-}
work=${KEEP_DIR:-$(mktemp -d)}
mkdir -p "$work"
pids=()
quota_group=
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -z "$quota_group" ] || rmdir "$quota_group" 2>/dev/null || true
  [ -n "${KEEP_DIR:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
# taskset prefixes (taskset execs the command, so $! is the pinned process itself).
pin_coordinator=()
pin_load=()
pin_redis=()
if command -v taskset > /dev/null; then
  [ -z "$COORDINATOR_CPUS" ] || pin_coordinator=(taskset -c "$COORDINATOR_CPUS")
  [ -z "$LOAD_CPUS" ] || pin_load=(taskset -c "$LOAD_CPUS")
  [ -z "$REDIS_CPUS" ] || pin_redis=(taskset -c "$REDIS_CPUS")
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Redis: loopback only, no snapshots or AOF (the store's durability is the deployment's choice; a fork
# every minute would measure the machine, not the coordinator).
redis_port=$(free_port)
"${pin_redis[@]}" redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
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
metrics_flags=(--metrics-listen 127.0.0.1:0)
[ "${COORDINATOR_TIMING:-1}" != 0 ] || metrics_flags=()
"${pin_coordinator[@]}" env ${COORDINATOR_ENV:-} "$BIN" coordinator --config "$work/sweep.yaml" --listen 127.0.0.1:0 --out "$work/out" \
  --redis "redis://127.0.0.1:$redis_port" "${metrics_flags[@]}" > "$work/coordinator.log" 2>&1 &
coordinator_pid=$!
pids+=("$coordinator_pid")
if [ -n "${COORDINATOR_QUOTA:-}" ]; then
  quota_group=/sys/fs/cgroup/cpu/noveltygrid-coordinator-load-$$
  mkdir "$quota_group" || { echo "COORDINATOR_QUOTA needs the cgroup v1 cpu controller at /sys/fs/cgroup/cpu"; exit 1; }
  period=$(cat "$quota_group/cpu.cfs_period_us")
  quota=$(awk -v cores="$COORDINATOR_QUOTA" -v period="$period" 'BEGIN { printf "%d", cores * period }')
  echo "$quota" > "$quota_group/cpu.cfs_quota_us"  # one write (the file refuses python's)
  echo "$coordinator_pid" > "$quota_group/cgroup.procs"  # the whole process, and the threads it starts
fi
addr=
for _ in $(seq 600); do
  addr=$(grep -o 'listening on [0-9.:]*' "$work/coordinator.log" | awk '{print $3}' || true)
  [ -n "$addr" ] && break
  kill -0 "$coordinator_pid" 2> /dev/null || { echo "the coordinator exited:"; tail -5 "$work/coordinator.log"; exit 1; }
  sleep 0.1
done
[ -n "$addr" ] || { echo "the coordinator did not start listening"; exit 1; }
# Its /metrics: the generator scrapes the coordinator's own timing of the calls at both ends of the window.
timing_flags=()
if [ "${#metrics_flags[@]}" -gt 0 ]; then
  metrics_port=$(grep -o 'metrics on port [0-9]*' "$work/coordinator.log" | awk '{print $4}' || true)
  [ -n "$metrics_port" ] || { echo "the coordinator did not say its metrics port"; exit 1; }
  timing_flags=(--coordinator-metrics "127.0.0.1:$metrics_port")
fi

units=$((QUESTIONS * TEMPERATURES * 4))
echo "coordinator_load: $units-unit plan, coordinator on cpu(s) ${COORDINATOR_CPUS:-any}${COORDINATOR_QUOTA:+ with a quota of $COORDINATOR_QUOTA core(s)}, redis on ${REDIS_CPUS:-any}, generator on ${LOAD_CPUS:-any};" \
  "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
if [ -n "${PERF:-}" ]; then
  (sleep "$WARMUP_S"; perf record --call-graph "${PERF_CALLGRAPH:-fp}" -F 499 -p "$coordinator_pid" -o "$work/perf.data" -- sleep "$DURATION_S" \
    > "$work/perf.log" 2>&1) &
  perf_pid=$!
fi
# shellcheck disable=SC2086
"${pin_load[@]}" nice -n "${LOAD_NICE:-19}" "$LOAD" --coordinator "$addr" --workers "$WORKERS" --loops "$LOOPS" --step-ms "$STEP_MS" \
  --iterations "$ITERATIONS" --warmup-s "$WARMUP_S" --duration-s "$DURATION_S" \
  --coordinator-pid "$coordinator_pid" "${timing_flags[@]}" --redis-pid "$redis_pid" --json "$work/load.json" ${EXTRA:-}
echo "coordinator RSS at the end: $(( $(awk '/VmRSS/ {print $2}' "/proc/$coordinator_pid/status") / 1024 )) MiB;" \
  "peak $(( $(awk '/VmHWM/ {print $2}' "/proc/$coordinator_pid/status") / 1024 )) MiB"
if [ -n "${perf_pid:-}" ]; then wait "$perf_pid" || true; echo "perf data: $work/perf.data"; fi
if [ -n "$quota_group" ]; then
  echo "coordinator quota, since its start: $(awk '/^nr_periods/ {p=$2} /^nr_throttled/ {t=$2} /^throttled_time/ {ms=$2/1e6}
    END {printf "%d of %d periods throttled, %.0f ms in all", t, p, ms}' "$quota_group/cpu.stat")"
fi
