#!/usr/bin/env bash
# `--devices all` (model scheduler) against CPU-only and device-only Cholesky, side by side: the
# configurations alternate, round after round, so that all see the same machine load. Prints one
# line per run (load average, configuration, time, GFLOP/s) and the ratio of the best times.
#
#   bench/cholesky_models.sh [--n N] [--block B] [--rounds R] [--repeat K] [--device opencl:0]
#                            [--models FILE]
#
# Each run reports the fastest of K factorisations (conveyor cholesky --repeat); the summary gives the
# ratio of the best runs and the ratio of the medians over the rounds (a VM's noise moves single
# runs by 5-10 %, so compare the medians of several rounds).
#
# The first `--devices all` run on a machine calibrates the models (it says so); run once before
# measuring, or give --models a file that a run has filled already. Device-only is skipped when the
# device cannot run every codelet (PoCL has gemm only).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
conveyor=${CONVEYOR:-$here/build/release/tools/conveyor/conveyor}
n=4096
block=256
rounds=3
repeat=1
device=opencl:0
models=""
while [ $# -gt 0 ]; do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --models) models="--models $2"; shift 2 ;;
    *) echo "cholesky_models.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

configs=("cpu" "all")
if "$conveyor" cholesky --n 64 --block 32 --devices "$device" --no-warmup >/dev/null 2>&1; then
  configs+=("$device")
fi
declare -A best all_times
for r in $(seq 1 "$rounds"); do
  for c in "${configs[@]}"; do
    extra=""
    [ "$c" != "cpu" ] && extra=$models
    json=$("$conveyor" cholesky --n "$n" --block "$block" --devices "$c" --repeat "$repeat" $extra --json)
    t=$(python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print(r["time_s"], r["gflops"], r["scheduler"], r["calibration_tasks"])' <<<"$json")
    read -r time gflops sched calib <<<"$t" || true
    echo "round $r  load $(cut -d' ' -f1 /proc/loadavg)  --devices $c ($sched): ${time} s, ${gflops} GFLOP/s, calibration tasks $calib"
    all_times[$c]="${all_times[$c]:-} $time"
    if [ -z "${best[$c]:-}" ] || python3 -c "import sys; sys.exit(0 if $time < ${best[$c]} else 1)"; then best[$c]=$time; fi
  done
done
ref=${best[cpu]}
[ -n "${best[$device]:-}" ] && ref=$(python3 -c "print(min(${best[cpu]}, ${best[$device]}))")
python3 -c "print(f'best: cpu ${best[cpu]} s, all ${best[all]} s; all / better single = {$ref / ${best[all]}:.3f}x (>= 1: all is faster)')"
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' $1; }
med_cpu=$(median "${all_times[cpu]}")
med_all=$(median "${all_times[all]}")
med_ref=$med_cpu
[ -n "${all_times[$device]:-}" ] && med_ref=$(python3 -c "print(min($med_cpu, $(median "${all_times[$device]}")))")
python3 -c "print(f'median over $rounds rounds: cpu $med_cpu s, all $med_all s; all / better single = {$med_ref / $med_all:.3f}x')"
