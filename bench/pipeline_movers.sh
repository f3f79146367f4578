#!/usr/bin/env bash
# Staged streaming (seed 000) on this machine: for every mover that exists here, CPU-only against
# pipelined per thread count, with --strategy auto (which may fall back to no staging) and with
# --strategy all (staging forced), one JSON result per run plus a figure per mover.
#
#   bench/pipeline_movers.sh [--threads 1-N] [--elements N] [--block B] [--depth Q] [--repeats K]
#                            [--out DIR] [--conveyor PATH]
#
# Movers tried: thread, prefetch, dsa (skipped with the reason when there is no work queue),
# opencl and cuda (skipped when there is no such device). Kernels: scale, triad, dot (the seed's).
# The machine's load average is printed before each run: on a shared host the figures move with it.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
conveyor=${CONVEYOR:-$here/build/release/tools/conveyor/conveyor}
threads="1-$(nproc)"
elements=32M
block=1MiB
depth=4
repeats=10
out=pipeline-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --elements) elements=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --conveyor) conveyor=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "pipeline_movers.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$conveyor" ] || { echo "pipeline_movers.sh: $conveyor not built (make build)" >&2; exit 1; }
mkdir -p "$out"

run() {  # run MOVER STRATEGY
  local mover=$1 strategy=$2 file="$out/pipeline-$1-$2.json"
  echo "== mover $mover, strategy $strategy, threads $threads (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  if ! "$conveyor" stream --pipeline "$mover" --strategy "$strategy" --threads "$threads" \
      --elements "$elements" --block "$block" --depth "$depth" --repeats "$repeats" \
      --json-out "$file" 2>"$out/err.txt"; then
    echo "   skipped: $(cat "$out/err.txt")"
    rm -f "$file"
    return 0
  fi
  "$conveyor" plot "$file" -o "${file%.json}.png" 2>/dev/null || true
}

for mover in thread prefetch dsa; do
  run "$mover" auto
  run "$mover" all
done
for device in opencl cuda; do
  run "$device" all
done
echo "results in $out/"
