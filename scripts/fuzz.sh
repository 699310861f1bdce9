#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build (tests/fuzz, built with -DNOVELTYGRID_FUZZ=ON; README
# "Fuzzing") for FUZZ_SECONDS each (default 20), $(nproc) targets at a time, and fails when one finds a
# crash, a hang (10 s on one input), a leak, an out-of-memory or any sanitizer report -- printing the
# reproducer it saved and the command that replays it.
#
#   bash scripts/fuzz.sh [BUILD_DIR]                      # default build-asan (scripts/test.sh's)
#   FUZZ_SECONDS=600 FUZZ_TARGETS="journal_fuzz" FUZZ_KEEP_CORPUS=1 bash scripts/fuzz.sh build-asan
#
# Each target's corpus is BUILD_DIR/fuzz/corpus/NAME: its committed seeds (tests/fuzz/seeds/NAME) and
# inputs made at run time from ../shared/data and the repository (examples, datasets, results folders).
# It is made afresh each run, so that the run's length does not grow with what earlier runs found (every
# input of the corpus is run before any mutation); FUZZ_KEEP_CORPUS=1 keeps and extends it instead, for
# longer runs that build on each other. Reproducers go to BUILD_DIR/fuzz/artifacts/NAME/, logs to
# BUILD_DIR/fuzz/logs/.
# Builds nothing: build the targets first (cmake --build BUILD_DIR --target $(cat BUILD_DIR/fuzz_targets.txt)).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc)}
data=../shared/data

if [ ! -f "$build/fuzz_targets.txt" ]; then
  echo "fuzz: $build/fuzz_targets.txt is missing; configure a fuzz build first:" >&2
  echo "  CC=clang CXX=clang++ cmake -S . -B $build -DNOVELTYGRID_SANITIZE=address -DNOVELTYGRID_FUZZ=ON" >&2
  exit 2
fi
build=$(cd "$build" && pwd)  # absolute, for the replay commands printed
read -r -a targets <<<"${FUZZ_TARGETS:-$(cat "$build/fuzz_targets.txt")}"
for name in "${targets[@]}"; do
  if [ ! -x "$build/tests/fuzz/$name" ]; then
    echo "fuzz: $build/tests/fuzz/$name is not built; cmake --build $build --target ${targets[*]}" >&2
    exit 2
  fi
done

# add NAME MODE_BYTE SOURCE_FILE [LABEL]: one corpus input, the file's bytes after the mode byte the
# target reads first ("" for targets without one). Inputs over 64 KiB are left out (libFuzzer's
# length limit follows the largest input, and long inputs slow every mutation).
add() {
  local name=$1 mode=$2 src=$3 label=${4:-$(basename "$3")}
  [ -f "$src" ] && [ "$(wc -c <"$src")" -le 65536 ] || return 0
  local out="$build/fuzz/corpus/$name/extra-$label"
  { [ -z "$mode" ] || printf "\\x$mode"; cat "$src"; } >"$out"
}
# add_head NAME MODE_BYTE SOURCE_FILE LINES [LABEL]: the same with the file's first LINES lines.
add_head() {
  local tmp
  tmp=$(mktemp)
  head -n "$4" "$3" >"$tmp" 2>/dev/null || true
  if [ -s "$tmp" ]; then add "$1" "$2" "$tmp" "${5:-$(basename "$3")}"; fi
  rm -f "$tmp"
}

prepare_corpus() {
  local name=$1 dir f tmp
  dir="$build/fuzz/corpus/$name"
  [ "${FUZZ_KEEP_CORPUS:-0}" != 0 ] || rm -rf "$dir"
  mkdir -p "$dir" "$build/fuzz/artifacts/$name"
  if [ -d "tests/fuzz/seeds/$name" ]; then cp -n tests/fuzz/seeds/"$name"/* "$dir"/ 2>/dev/null || true; fi
  case $name in
    sweep_config_fuzz)
      for f in examples/*.yaml deploy/k8s/overlays/production/sweep.yaml; do add "$name" "" "$f"; done ;;
    aidan_import_fuzz)
      # Excerpts of the published run: per model, its first two questions' first four answers.
      if command -v jq >/dev/null && [ -f "$data/aidanbench/reference-runs/not_cot.json" ]; then
        tmp=$(mktemp)
        for i in 0 1 2 3 4; do
          jq --argjson i "$i" '{models: (.models | to_entries | .[$i:$i+1] | map({key, value: (.value |
              map_values(to_entries | .[0:2] | map({key, value: .value[0:4]}) | from_entries))}) | from_entries)}' \
            "$data/aidanbench/reference-runs/not_cot.json" >"$tmp" 2>/dev/null && add "$name" 00 "$tmp" "not_cot-$i"
        done
        rm -f "$tmp"
      fi ;;
    novelty_import_fuzz)
      for f in "$data"/noveltybench/reference-runs/*/scores.jsonl; do
        add_head "$name" 00 "$f" 2 "$(basename "$(dirname "$f")")"
        add_head "$name" 01 "$f" 1 "$(basename "$(dirname "$f")")-unigram"
      done
      for f in results/*/samples.jsonl; do add_head "$name" 00 "$f" 3 "$(basename "$(dirname "$f")")"; done ;;
    results_rows_fuzz)
      for f in results/*/answers.jsonl; do add_head "$name" 01 "$f" 20 "$(basename "$(dirname "$f")")-answers"; done
      for f in results/*/samples.jsonl; do add_head "$name" 02 "$f" 3 "$(basename "$(dirname "$f")")-samples"; done ;;
    json_reader_fuzz)
      add "$name" "" "$data/aidanbench/prompts-reference.json"
      for f in "$data"/noveltybench/reference-runs/*/summary.json; do
        add "$name" "" "$f" "$(basename "$(dirname "$f")")-summary"
      done
      add_head "$name" "" "$data/noveltybench/curated.jsonl" 1 ;;
    judge_tags_fuzz)
      add "$name" "" "$data/aidanbench/prompts-reference.json" ;;
    journal_fuzz)
      for f in results/*/.noveltygrid/leases.log; do add "$name" 03 "$f" "$(basename "$(dirname "$(dirname "$f")")")-leases"; done
      for f in results/*/.noveltygrid/journal.bin; do
        [ -f "$f" ] || continue  # no results folder yet (a fresh clone)
        tmp=$(mktemp)
        head -c 16384 "$f" >"$tmp"  # its first records (and a torn one)
        add "$name" 00 "$tmp" "$(basename "$(dirname "$(dirname "$f")")")-journal"
        rm -f "$tmp"
      done ;;
  esac
}

# The libFuzzer dictionary (tests/fuzz/dicts/) of each target: the tokens of the format it reads.
dict_of() {
  case $1 in
    sweep_config_fuzz) echo yaml ;;
    http_request_fuzz | http1_response_fuzz) echo http ;;
    judge_tags_fuzz) echo tags ;;
    redis_url_fuzz) echo redis_url ;;
    *) echo json ;;
  esac
}

# run NAME: fuzzes one target; its log and exit status land in BUILD/fuzz/logs.
run() {
  local name=$1
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/tests/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -detect_leaks=1 -print_final_stats=1 -dict="tests/fuzz/dicts/$(dict_of "$name").dict" \
    -artifact_prefix="$build/fuzz/artifacts/$name/" "$build/fuzz/corpus/$name" >"$build/fuzz/logs/$name.log" 2>&1
}

start=$(date +%s)
mkdir -p "$build/fuzz/logs"
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $jobs at a time ($build)" >&2
running=0
for name in "${targets[@]}"; do
  prepare_corpus "$name"
  rm -f "$build/fuzz/logs/$name.rc"
  (
    status=0
    run "$name" || status=$?
    echo "$status" >"$build/fuzz/logs/$name.rc"
  ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

failed=0
for name in "${targets[@]}"; do
  log="$build/fuzz/logs/$name.log"
  status=$(cat "$build/fuzz/logs/$name.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(grep -ao 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //')
  cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
  if [ "$status" = 0 ]; then
    printf 'fuzz: %-22s ok      %9s execs (%s/s), corpus %s, coverage %s\n' "$name" "${execs:-?}" "${rate:-?}" \
      "${corpus:-?}" "${cov:-?}"
    continue
  fi
  failed=$((failed + 1))
  reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
  what=$(grep -aE -m1 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|FUZZ_CHECK|SUMMARY:' "$log" || true)
  printf 'fuzz: %-22s FAILED  %s\n' "$name" "${what:-exit status $status}"
  if [ -n "$reproducer" ]; then
    echo "      reproducer: $reproducer"
    echo "      replay:     $build/tests/fuzz/$name $reproducer"
  fi
  echo "      log:        $log"
done
echo "fuzz: $((${#targets[@]} - failed)) of ${#targets[@]} targets clean in $(($(date +%s) - start)) s" >&2
[ "$failed" = 0 ]
