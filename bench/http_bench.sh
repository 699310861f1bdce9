#!/usr/bin/env bash
# HTTP-path benchmark (issue item 8): a worker running 512 AidanBench loops in flight against
# `noveltygrid serve-sim` with 100 ms latency. Measures
#   * sweep efficiency  = ideal time / measured wall time (ideal: see bench/http_bench_analyze.py)
#   * worker CPU microseconds per API call (chat + embeddings requests counted by serve-sim /stats)
#   * worker memory per loop in flight = (peak RSS at 512 loops - peak RSS of a 1-loop worker) / 512
# Prints a table and writes bench/results/http-latest.json (plus a copy named after the run's time).
#
#   bash bench/http_bench.sh            # defaults below; every knob is an environment variable
#
# Processes: serve-sim, a coordinator and ONE worker, in cluster mode so the worker's CPU is its own.
# On a 2-core machine the script pins (PIN=1, default when nproc >= 2) the worker alone to the last
# core and serve-sim + coordinator + sampler to the others, so the worker figure is not disturbed by
# the server's load and the server's own CPU is reported separately.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-}
if [[ -z "$BIN" ]]; then
  for c in "$ROOT/build-bench/noveltygrid" "$ROOT/build/noveltygrid"; do
    if [[ -x "$c" ]]; then BIN=$c; break; fi
  done
fi
[[ -x "${BIN:-}" ]] || { echo "http_bench: no noveltygrid binary (build build-bench/ or set BIN=)" >&2; exit 2; }

LATENCY_MS=${LATENCY_MS:-100}
CONCURRENCY=${CONCURRENCY:-512}
# Worker threads: empty = the product default, the CPUs the worker may use (1 when PIN=1 pins it to one core).
WORKER_THREADS=${WORKER_THREADS:-}
THREADS_ARGS=()
[[ -n "$WORKER_THREADS" ]] && THREADS_ARGS=(--threads "$WORKER_THREADS")
SERVER_THREADS=${SERVER_THREADS:-1}   # serve-sim event loops (capped at the CPUs it may use; one serves ~5k requests/s)
# Temperatures: N_TEMPS evenly spaced in [0.1, 1.0]; 4 models x N_TEMPS x 65 questions units (6: 1560
# units, ~26k iterations: the ideal executor needs ~18 s, the measured run ~2-3 min on 2 cores today).
N_TEMPS=${N_TEMPS:-6}
MODELS=${MODELS:-"sim:explorer, sim:steady, sim:chaotic, sim:collapse"}
QUESTIONS=${QUESTIONS:-$ROOT/datasets/aidanbench/questions-paper-65.jsonl}
EMBED_BATCH=${EMBED_BATCH:-64}
EMBED_WAIT_MS=${EMBED_WAIT_MS:-0}   # the product default (no timer); N > 0: wait up to N ms for company
NPROC=$(nproc)
PIN=${PIN:-$([[ $NPROC -ge 2 ]] && echo 1 || echo 0)}
LABEL=${LABEL:-}
# A command the measured worker runs under, for deterministic counts instead of noisy CPU seconds:
#   WORKER_PREFIX="valgrind --tool=callgrind --callgrind-out-file=/tmp/ng-worker.callgrind" N_TEMPS=1
# (user-space instructions; the worker then runs ~20x slower, so time, efficiency and memory figures
# of that run mean nothing) or WORKER_PREFIX="perf stat -e context-switches,raw_syscalls:sys_enter -o FILE".
WORKER_PREFIX=${WORKER_PREFIX:-}
# The same for serve-sim, valgrind only (SIM_PREFIX="valgrind --tool=callgrind --callgrind-out-file=/tmp/s.cg"):
# valgrind runs in serve-sim's process, so its CPU figure stays serve-sim's; under perf it would be perf's.
SIM_PREFIX=${SIM_PREFIX:-}
read -ra SIM_PREFIX_ARGS <<<"$SIM_PREFIX"
# The same for the measured sweep's coordinator, e.g. COORDINATOR_PREFIX="perf record -F 999 -o FILE"
# (with GNU time outside it, the coordinator's CPU and peak RSS figures then include the profiler's).
COORDINATOR_PREFIX=${COORDINATOR_PREFIX:-}
GNU_TIME=${GNU_TIME:-/usr/bin/time}
[[ -x "$GNU_TIME" ]] || { echo "http_bench: needs GNU time at $GNU_TIME (apt-get install time)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/ng-http-bench.XXXXXX)
RESULTS_DIR="$ROOT/bench/results"
mkdir -p "$RESULTS_DIR"
export NOVELTYGRID_TOKEN=${NOVELTYGRID_TOKEN:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}

if [[ "$PIN" == 1 ]]; then
  WORKER_CPUS=$((NPROC - 1))
  OTHER_CPUS="0-$((NPROC - 2))"
  PIN_WORKER=(taskset -c "$WORKER_CPUS")
  PIN_OTHER=(taskset -c "$OTHER_CPUS")
  PINNING="worker on cpu $WORKER_CPUS; serve-sim, coordinator on cpu $OTHER_CPUS"
else
  PIN_WORKER=()
  PIN_OTHER=()
  PINNING="none"
fi

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -z "${KEEP_WORK:-}" ]]; then rm -rf "$WORK"; else echo "http_bench: kept $WORK" >&2; fi
}
trap cleanup EXIT

now() { date +%s.%N; }
# "listening on HOST:PORT" from a log file, waiting up to 30 s.
wait_addr() {
  local file=$1 pid=$2 addr=""
  for _ in $(seq 300); do
    addr=$(grep -o 'listening on [^ ]*' "$file" 2>/dev/null | head -1 | awk '{print $3}') || true
    [[ -n "$addr" ]] && { echo "$addr"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "http_bench: no 'listening on' line in $file:" >&2; cat "$file" >&2; return 1
}
# /proc and HTTP readers for the sampler (and serve-sim's CPU around the sweep): bash builtins only,
# each leaves its answer in REPLY ("-" when there is none).
proc_ticks() {  # PID: its utime + stime in ticks
  REPLY=-
  [[ -n "$1" ]] || return 0
  local line
  read -r line 2>/dev/null <"/proc/$1/stat" || return 0
  local -a f
  read -ra f <<<"${line##*) }"  # fields from the third (state) on
  REPLY=$((f[11] + f[12]))
}
proc_rss() {  # PID: VmRSS in kB
  REPLY=-
  [[ -n "$1" ]] || return 0
  local key value _
  { while read -r key value _; do
      [[ "$key" == VmRSS: ]] && { REPLY=$value; return 0; }
    done <"/proc/$1/status"; } 2>/dev/null || true
}
http_get() {  # HOST:PORT PATH: the body of a GET (empty when it fails), by Content-Length or to EOF
  REPLY=""
  local fd line length="" body=""
  { exec {fd}<>"/dev/tcp/${1%:*}/${1##*:}"; } 2>/dev/null || return 0
  if ! { printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$2" "$1" >&"$fd"; } 2>/dev/null; then
    exec {fd}>&-
    return 0
  fi
  while IFS= read -rt 2 -u "$fd" line && [[ "$line" != $'\r' && -n "$line" ]]; do
    [[ "${line,,}" =~ ^content-length:\ *([0-9]+) ]] && length=${BASH_REMATCH[1]}
  done
  if [[ -n "$length" ]]; then
    IFS= read -rt 2 -N "$length" -u "$fd" body || true
  else
    while IFS= read -rt 2 -u "$fd" line; do body+=$line$'\n'; done
  fi
  exec {fd}>&-
  REPLY=$body
}
metrics_leased() {  # HOST:PORT of the coordinator's metrics: the units leased, all models
  http_get "$1" /metrics
  local total=0 found="" line value
  while IFS= read -r line; do
    [[ "$line" == noveltygrid_units_leased* ]] || continue
    value=${line##* }
    value=${value%%.*}
    [[ "$value" =~ ^[0-9]+$ ]] && total=$((total + value)) found=1
  done <<<"$REPLY"
  REPLY=${found:+$total}
  REPLY=${REPLY:--}
}
sim_stats() {  # serve-sim's requests served so far (chat + embeddings) and its in-flight peak
  http_get "$SIM_ADDR" /stats
  local chat="" embeddings="" peak=""
  [[ "$REPLY" =~ \"chat\":\ *([0-9]+) ]] && chat=${BASH_REMATCH[1]}
  [[ "$REPLY" =~ \"embeddings\":\ *([0-9]+) ]] && embeddings=${BASH_REMATCH[1]}
  [[ "$REPLY" =~ \"in_flight_peak\":\ *([0-9]+) ]] && peak=${BASH_REMATCH[1]}
  if [[ -n "$chat" && -n "$embeddings" && -n "$peak" ]]; then REPLY="$((chat + embeddings)) $peak"; else REPLY=-; fi
}

write_config() {  # FILE NAME TEMPS CONCURRENCY MODELS QUESTIONS
  cat >"$1" <<EOF
name: $2
seed: 7
models: [$5]
temperatures: [$3]
judge: sim:judge
embedder: lexical
concurrency: $4
providers:
  sim:
    base_url: http://$SIM_ADDR/v1
    timeout_s: 60
    embed_batch: $EMBED_BATCH
    embed_wait_ms: $EMBED_WAIT_MS
aidanbench:
  questions: $6
  preset: reference-2025
EOF
}

# One sweep in cluster mode: coordinator + one worker, each under GNU time. Sets SWEEP_START/END.
run_cluster() {  # NAME CONFIG CONCURRENCY SAMPLE(0/1)
  local name=$1 config=$2 conc=$3 sample=$4
  local out="$WORK/$name"
  local metrics_args=()
  # The sampler reads the units leased from the coordinator's metrics.
  [[ "$sample" == 1 ]] && metrics_args=(--metrics-listen 127.0.0.1:0)
  local cprefix=()
  [[ "$name" == sweep && -n "$COORDINATOR_PREFIX" ]] && read -ra cprefix <<<"$COORDINATOR_PREFIX"
  "${PIN_OTHER[@]}" "$GNU_TIME" -v -o "$WORK/$name-coordinator.time" \
    "${cprefix[@]}" "$BIN" coordinator --config "$config" --listen 127.0.0.1:0 --out "$out" "${metrics_args[@]}" \
    >"$WORK/$name-coordinator.log" 2>&1 &
  local cpid=$!
  PIDS+=("$cpid")
  local caddr
  caddr=$(wait_addr "$WORK/$name-coordinator.log" "$cpid")
  local maddr=""
  if [[ "$sample" == 1 ]]; then  # printed after the "listening on" line
    maddr=127.0.0.1:$(sed -n 's/.*metrics on port \([0-9]*\).*/\1/p' "$WORK/$name-coordinator.log" | head -1)
  fi
  SWEEP_START=$(now)
  local prefix=()
  [[ "$name" == sweep && -n "$WORKER_PREFIX" ]] && read -ra prefix <<<"$WORKER_PREFIX"
  "${PIN_WORKER[@]}" "$GNU_TIME" -v -o "$WORK/$name-worker.time" \
    "${prefix[@]}" "$BIN" worker --coordinator "$caddr" --concurrency "$conc" "${THREADS_ARGS[@]}" \
    >"$WORK/$name-worker.log" 2>&1 &
  local wpid=$!
  PIDS+=("$wpid")
  local spid=""
  if [[ "$sample" == 1 ]]; then
    (
      # t, units leased (coordinator), worker VmRSS kB, worker utime+stime ticks, serve-sim ticks,
      # serve-sim requests served so far (chat + embeddings), serve-sim in-flight peak.
      # Bash builtins only: no process is started per sample, so the sampler takes next to no CPU
      # from the core serve-sim and the coordinator share (`noveltygrid status` and curl once a
      # second took ~5-10% of it).
      export LC_ALL=C  # $EPOCHREALTIME with a decimal point; read -N counting bytes
      trap '' PIPE     # a write to a closing endpoint fails instead of ending the sampler
      [[ "$PIN" == 1 ]] && taskset -pc "$OTHER_CPUS" "$BASHPID" >/dev/null
      local child="" sleep_fd
      exec {sleep_fd}<> <(:)
      while [[ -d /proc/$wpid ]]; do
        [[ -z "$child" ]] && { read -r child _ <"/proc/$wpid/task/$wpid/children" || true; } 2>/dev/null
        local leased rss ticks sticks
        metrics_leased "$maddr"; leased=$REPLY
        proc_rss "$child"; rss=$REPLY
        proc_ticks "$child"; ticks=$REPLY
        proc_ticks "$SIM_PID"; sticks=$REPLY
        sim_stats
        echo "$EPOCHREALTIME $leased $rss $ticks $sticks $REPLY"
        read -rt 1 -u "$sleep_fd" || true
      done
    ) >"$WORK/samples.tsv" &
    spid=$!
  fi
  local wrc=0 crc=0
  wait "$wpid" || wrc=$?
  wait "$cpid" || crc=$?
  SWEEP_END=$(now)
  [[ -n "$spid" ]] && { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
  if [[ $wrc != 0 || $crc != 0 ]]; then
    echo "http_bench: sweep $name failed (worker $wrc, coordinator $crc)" >&2
    tail -20 "$WORK/$name-worker.log" "$WORK/$name-coordinator.log" >&2
    exit 1
  fi
}

# --- serve-sim --------------------------------------------------------------------------------------
"${PIN_OTHER[@]}" "${SIM_PREFIX_ARGS[@]}" "$BIN" serve-sim --listen 127.0.0.1:0 --latency-ms "$LATENCY_MS" --threads "$SERVER_THREADS" \
  >"$WORK/serve-sim.log" 2>&1 &
SIM_PID=$!
PIDS+=("$SIM_PID")
SIM_ADDR=$(wait_addr "$WORK/serve-sim.log" "$SIM_PID")
echo "http_bench: serve-sim on $SIM_ADDR (latency ${LATENCY_MS} ms, $SERVER_THREADS threads); pinning: $PINNING" >&2

# --- 1-loop worker: the memory baseline ------------------------------------------------------------------
head -n 3 "$QUESTIONS" >"$WORK/idle-questions.jsonl"
write_config "$WORK/idle.yaml" bench-idle "0.7" 1 "sim:steady" "$WORK/idle-questions.jsonl"
run_cluster idle "$WORK/idle.yaml" 1 0
cp "$WORK/idle-worker.time" "$WORK/idle-worker.time.keep"

# --- the measured sweep ---------------------------------------------------------------------------------
TEMPS=$(python3 -c "n=$N_TEMPS; print(', '.join(f'{0.1 + 0.9 * i / max(1, n - 1):.4g}' for i in range(n)))")
write_config "$WORK/sweep.yaml" bench-http "$TEMPS" "$CONCURRENCY" "$MODELS" "$QUESTIONS"
curl -fsS "http://$SIM_ADDR/stats" >"$WORK/stats-before.json"
proc_ticks "$SIM_PID"; SERVER_BEFORE=$REPLY
echo "http_bench: sweep of $(echo "$MODELS" | tr ',' '\n' | wc -l) models x $N_TEMPS temperatures x $(grep -c . "$QUESTIONS") questions, $CONCURRENCY loops in flight ..." >&2
run_cluster sweep "$WORK/sweep.yaml" "$CONCURRENCY" 1
proc_ticks "$SIM_PID"; SERVER_AFTER=$REPLY
curl -fsS "http://$SIM_ADDR/stats" >"$WORK/stats-after.json"

# --- figures --------------------------------------------------------------------------------------------
mkdir -p "$WORK/an"
ln -s "$WORK/sweep" "$WORK/an/results"
cp "$WORK/sweep-worker.time" "$WORK/an/worker.time"
cp "$WORK/sweep-coordinator.time" "$WORK/an/coordinator.time"
cp "$WORK/idle-worker.time.keep" "$WORK/an/idle-worker.time"
cp "$WORK/stats-before.json" "$WORK/stats-after.json" "$WORK/samples.tsv" "$WORK/an/"
echo "{\"before_ticks\": $SERVER_BEFORE, \"after_ticks\": $SERVER_AFTER, \"hz\": $(getconf CLK_TCK)}" >"$WORK/an/server-cpu.json"
CPU_MODEL=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
python3 - "$WORK/an/meta.json" <<EOF
import json, sys
meta = {
  "concurrency": $CONCURRENCY, "latency_ms": $LATENCY_MS,
  "models": [m.strip() for m in "$MODELS".split(",")],
  "temperatures": [float(t) for t in "$TEMPS".split(",")],
  "questions": "$QUESTIONS",
  "sweep_start": $SWEEP_START, "sweep_end": $SWEEP_END,
  "worker_threads": "${WORKER_THREADS:-default}", "server_threads": $SERVER_THREADS, "pinning": "$PINNING",
  "machine": {"nproc": $NPROC, "cpu_model": "$CPU_MODEL", "kernel": "$(uname -r)",
              "binary": "$BIN", "git": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"},
}
json.dump(meta, open(sys.argv[1], "w"), indent=2)
EOF
STAMP=$(date +%Y%m%d-%H%M%S)
python3 "$ROOT/bench/http_bench_analyze.py" --work "$WORK/an" --out "$RESULTS_DIR/http-$STAMP.json" --label "$LABEL"
cp "$RESULTS_DIR/http-$STAMP.json" "$RESULTS_DIR/http-latest.json"
echo "http_bench: wrote $RESULTS_DIR/http-latest.json (and http-$STAMP.json)" >&2
