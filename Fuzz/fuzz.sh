#!/usr/bin/env bash
# Runs each fuzz target for SECONDS seconds: fuzz.sh SECONDS BUILD-FOLDER TARGET...
#
# Each target keeps its corpus in BUILD-FOLDER/corpus/TARGET (grown across runs) and starts
# from the seeds in BUILD-FOLDER/seeds/TARGET (Fuzz/seed-corpora.sh). A crash, leak, timeout
# (over 1 s for one input) or out-of-memory (over 512 MB) fails the run with a non-zero status
# and leaves the input in BUILD-FOLDER/artifacts/TARGET/; logs go to BUILD-FOLDER/logs/.
# Replay an input with the normal build: .build/debug/TARGET FILE.
#
# libFuzzer's timeout is wall-clock time, and the fuzzers run niced on shared machines, so a
# busy machine can stall an input past 1 s. A timeout is therefore replayed alone: when the
# input takes under 1 s of CPU time it is reported as a stall and fuzzing goes on for the rest
# of the time; otherwise it is a finding and fails the run.
set -u
seconds=$1
build=$2
shift 2
nice_level=${FUZZ_NICE:-15}
# ASan keeps 256 MB of freed memory to catch use after free; a smaller quarantine leaves the
# 512 MB RSS limit to the input under test. ASan records the stack of every allocation, 30
# frames by default: 8 frames cost about a fifth less CPU per input (RELIABILITY.md §1), find
# the same errors, and still reach the Swift caller. Replay a finding with
# ASAN_OPTIONS=malloc_context_size=30 for the whole allocation stack.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:malloc_context_size=8}
# Leaks in other people's code, each named and explained in the file.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan-suppressions.txt}
status=0

# cpu_seconds TARGET INPUT: the CPU time (user + system) of running INPUT once.
cpu_seconds() {
  local TIMEFORMAT='%3U %3S'
  { time SWIFT_BACKTRACE=enable=no "$build/release/$1" -runs=1 "$2" >/dev/null 2>&1; } 2>&1 |
    awk '{ print $1 + $2 }'
}

for target in "$@"; do
  case $target in
    FuzzXMLStore) dict=xml-store max_len=32768 ;;
    FuzzBinaryStore | FuzzBinaryBody) dict=binary-store max_len=8192 ;;
    FuzzXcodeModel) dict=xcdatamodel max_len=32768 ;;
    FuzzPredicate) dict=predicate max_len=4096 ;;
    FuzzUndoScript) dict=undo-script max_len=4096 ;;
    FuzzSQLiteStore) dict=sqlite-store max_len=65536 ;;
    FuzzMappingModel) dict=mapping-model max_len=32768 ;;
    FuzzUndoHistory) dict=undo-history max_len=8192 ;;
    FuzzPasteboard) dict=pasteboard max_len=8192 ;;
    FuzzTransformer) dict=transformer max_len=8192 ;;
    FuzzChangeJournal) dict=change-journal max_len=8192 ;;
    FuzzCommitLog) dict=commit-log max_len=4096 ;;
    *) echo "unknown fuzz target $target" >&2; exit 64 ;;
  esac
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target" "$build/logs"
  start=$SECONDS
  runs=0
  part=0
  result=0
  while :; do
    left=$((seconds - (SECONDS - start)))
    [ "$left" -gt 0 ] || break
    part=$((part + 1))
    log="$build/logs/$target.$part.log"
    # Swift's own crash backtracer would race ASan's report; libFuzzer reports crashes instead.
    SWIFT_BACKTRACE=enable=no nice -n "$nice_level" \
      "$build/release/$target" "$build/corpus/$target" "$build/seeds/$target" \
      -dict="Fuzz/Dictionaries/$dict.dict" -max_len="$max_len" -max_total_time="$left" \
      -timeout=1 -rss_limit_mb=512 -malloc_limit_mb=512 -detect_leaks=1 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$target/" >"$log" 2>&1
    result=$?
    done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    runs=$((runs + ${done_runs:-0}))
    [ "$result" -ne 0 ] || break
    grep -q 'ERROR: libFuzzer: timeout' "$log" || break
    input=$(sed -n "s|.*Test unit written to \(.*timeout-[0-9a-f]*\).*|\1|p" "$log" | tail -n 1)
    [ -n "$input" ] || break
    cpu=$(cpu_seconds "$target" "$input")
    if awk -v cpu="$cpu" 'BEGIN { exit !(cpu < 1) }'; then
      echo "$target: stall, not a timeout: $input takes $cpu s of CPU alone; fuzzing on"
      mv "$input" "$input.stall"
      result=0
    else
      echo "$target: $input takes $cpu s of CPU alone"
      break
    fi
  done
  coverage=$(grep -hE '^#[0-9]+' "$build/logs/$target.$part.log" | tail -n 1 |
    grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  corpus=$(ls "$build/corpus/$target" | wc -l)
  if [ "$result" -eq 0 ]; then
    echo "$target: ok, $runs executions in $seconds s, ${coverage:-no coverage line}, corpus $corpus"
  else
    status=1
    echo "$target: FAILED (exit $result), see $log and $build/artifacts/$target/"
    grep -E '^==[0-9]+== ?ERROR|^SUMMARY|Fatal error|Precondition failed|libFuzzer: (timeout|out-of-memory|deadly)' \
      "$log" | head -n 5
  fi
done
exit $status
