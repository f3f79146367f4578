#!/usr/bin/env bash
# Prefetch on against off (RuntimeOptions::prefetch) on the tiled Cholesky, side by side: the two
# alternate, round after round (the order flips each round), so that both see the same machine
# load. Prints one line per run (load average, setting, time, copies, prefetches used/dropped) and
# the medians and their ratio.
#
#   bench/cholesky_prefetch.sh [--rounds R] [conveyor cholesky options...]
#   bench/cholesky_prefetch.sh --rounds 5 --n 4096 --block 256 --devices cpu,opencl:0 --offload gemm
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
conveyor=${CONVEYOR:-$here/build/release/tools/conveyor/conveyor}
rounds=3
if [ "${1:-}" = "--rounds" ]; then
  rounds=$2
  shift 2
fi
declare -A times
for r in $(seq 1 "$rounds"); do
  order=("on" "off")
  [ $((r % 2)) -eq 0 ] && order=("off" "on")
  for p in "${order[@]}"; do
    json=$("$conveyor" cholesky "$@" --prefetch "$p" --json)
    line=$(python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
print(r["time_s"], r["check"].replace(" ", "-"), r["h2d_copies"], r["d2h_copies"], r["evictions"], r["prefetches"],
      r["prefetches_used"], r["prefetches_dropped"])' <<<"$json")
    read -r time check h2d d2h evictions pf used dropped <<<"$line"
    echo "round $r  load $(cut -d' ' -f1 /proc/loadavg)  prefetch $p: ${time} s (check $check)," \
      "H2D $h2d D2H $d2h, evictions $evictions, prefetches $pf (used $used, dropped $dropped)"
    times[$p]="${times[$p]:-} $time"
  done
done
python3 - ${times[on]} -- ${times[off]} <<'EOF'
import statistics, sys
args = sys.argv[1:]
cut = args.index("--")
on = statistics.median(map(float, args[:cut]))
off = statistics.median(map(float, args[cut + 1:]))
print(f"median: on {on:.3f} s, off {off:.3f} s; off / on = {off / on:.3f}x (> 1: prefetch faster)")
EOF
