#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (the `asan` preset: clang, ASan + UBSan, the tree that also
# holds `make test`'s sanitized tests) and runs each one for FUZZ_SECONDS, then prints one row per
# harness: executions, coverage (libFuzzer's cov: edges and ft: features at the end) and crashes.
# docs/fuzzing.md says what each harness feeds and how a crash becomes a regression test.
#
#   scripts/fuzz.sh [HARNESS...]          every harness, or the ones named (elf_loader decoder ...)
#   FUZZ_SECONDS=300 scripts/fuzz.sh platform
#
#   FUZZ_SECONDS  seconds per harness (default 60)
#   JOBS          build parallelism and harnesses run at a time (default: nproc)
#
# Each run starts from a copy of fuzz/corpus/<harness>/ in a fresh temporary folder (removed at
# the end; the repository's corpus is never written). Crash, timeout and out-of-memory inputs are
# kept in build/asan/crashes/<harness>/, next to the harness binaries, to reproduce with
#   build/asan/fuzz/fuzz_<harness> build/asan/crashes/<harness>/crash-...
# Exit status: 0 when no harness found anything, 1 when one did, 2 for bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(elf_loader decoder calibration performance_model platform sizes device_list capi_arguments)
seconds=${FUZZ_SECONDS:-60}
case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_SECONDS must be a positive number" >&2; exit 2; }
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
  [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz: unknown harness '$h' (known: ${all[*]})" >&2; exit 2; }
done

# The longest input worth trying, per harness: a few pages for files, a line for options.
max_len() {
  case "$1" in
    elf_loader) echo 8192 ;;
    decoder) echo 1024 ;;                      # 256 instructions
    calibration|performance_model|platform) echo 4096 ;;
    sizes|device_list) echo 128 ;;
    capi_arguments) echo 1024 ;;
  esac
}

cmake --preset asan > /dev/null
cmake --build build/asan -j "${JOBS:-$(nproc)}" --target conveyor_fuzzers

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The harnesses (the C interface's model schedulers) write nowhere else.
export TMPDIR=$work XDG_CACHE_HOME=$work/cache
mkdir -p "$work/cache"

# One harness: its log, exit status and the number of crash files it had before, in $work.
fuzz_one() {
  local h=$1 corpus=$work/corpus/$1 crashes=build/asan/crashes/$1 rc=0
  # -timeout: one input running longer than 10 s is a hang; -rss_limit_mb: 2 GB is an
  # out-of-memory bug for inputs of a few KB.
  build/asan/fuzz/fuzz_"$h" "$corpus" -max_total_time="$seconds" -max_len="$(max_len "$h")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
    > "$work/$h.log" 2>&1 || rc=$?
  echo "$rc" > "$work/$h.rc"
}

# JOBS harnesses at a time (each is one process on one core), rows in the order named.
jobs=${JOBS:-$(nproc)}
for h in "${harnesses[@]}"; do
  corpus=$work/corpus/$h crashes=build/asan/crashes/$h
  mkdir -p "$corpus" "$crashes"
  cp fuzz/corpus/"$h"/* "$corpus"/
  ls "$crashes" | wc -l > "$work/$h.before"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzz: $h for ${seconds}s"
  fuzz_one "$h" &
done
wait

rows=() failed=0
for h in "${harnesses[@]}"; do
  crashes=build/asan/crashes/$h rc=$(cat "$work/$h.rc")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$h.log" | tail -1)
  # The last status line ("#1234 DONE cov: 567 ft: 890 corp: ...") holds the coverage reached.
  status=$(grep -E '^#[0-9]+.* cov: ' "$work/$h.log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$status")
  found=$(($(ls "$crashes" | wc -l) - $(cat "$work/$h.before")))
  if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi  # e.g. a crash before any input
  if [ "$found" -gt 0 ]; then
    failed=1
    echo "fuzz: $h failed (exit $rc); the end of its log:" >&2
    tail -40 "$work/$h.log" >&2
    echo "fuzz: inputs kept in $crashes/" >&2
  fi
  rows+=("$(printf '%-18s %12s %8s %8s %8s' "$h" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$found")")
done

echo
printf '%-18s %12s %8s %8s %8s\n' harness executions cov ft crashes
for r in "${rows[@]}"; do echo "$r"; done
echo "(${seconds} s per harness; cov: edges covered, ft: libFuzzer features)"
exit "$failed"
