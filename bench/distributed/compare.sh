#!/usr/bin/env bash
# A distributed factorisation side by side with its ScaLAPACK peer, in one run (2 and 4 ranks):
# `conveyor APP --grid PxQ` (one runtime per rank, tiles 2D block-cyclic) and the ScaLAPACK routine
# (same matrix, block size and grid), alternating, best of REPEAT each; RANKS="2 4" (the most
# square grid of each), or GRIDS="1x2 2x2 1x4" for given grids. APP=cholesky (default)
# against pdpotrf (n^3/3 flop both), APP=qr against pdgeqrf (4/3 n^3 both). Prints the best times,
# GFLOP/s, the ratio (conveyor / ScaLAPACK GFLOP/s), and the machine load before and after the run
# (run it quiet).
#
#   scripts/setup-deps.sh --bench    # libscalapack-openmpi-dev
#   cmake --build build/release --target conveyor_cli bench_scalapack_pdpotrf bench_scalapack_pdgeqrf
#   N=4096 BLOCK=256 REPEAT=3 bench/distributed/compare.sh
#   APP=qr N=4096 BLOCK=256 REPEAT=3 bench/distributed/compare.sh
#   APP=qr EXTRA=--tree GRIDS="2x1 2x2" bench/distributed/compare.sh   # more conveyor options
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build/release}
conveyor=$build/tools/conveyor/conveyor
APP=${APP:-cholesky}
case "$APP" in
  cholesky) routine=pdpotrf ;;
  qr) routine=pdgeqrf ;;
  *) echo "compare: APP is cholesky or qr, got '$APP'" >&2; exit 2 ;;
esac
peer=$build/bench/bench_scalapack_$routine
N=${N:-4096}
BLOCK=${BLOCK:-256}
REPEAT=${REPEAT:-3}
RANKS=${RANKS:-"2 4"}
GRIDS=${GRIDS:-}
EXTRA=${EXTRA:-}
if [ -z "$GRIDS" ]; then
  for r in $RANKS; do
    p=1; for d in $(seq 1 "$r"); do [ $((d * d)) -le "$r" ] && [ $((r % d)) -eq 0 ] && p=$d; done
    GRIDS="$GRIDS ${p}x$((r / p))"
  done
fi
[ -x "$conveyor" ] || { echo "compare: build conveyor_cli first" >&2; exit 2; }
[ -x "$peer" ] || { echo "compare: build bench_scalapack_$routine (needs libscalapack-openmpi-dev)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
cores=$(nproc)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cores cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$APP n = $N, block = $BLOCK, double, best of $REPEAT (conveyor${EXTRA:+ $EXTRA} and $routine alternating)"
printf '%-6s %-5s %12s %12s %12s %12s %8s\n' ranks grid conveyor_s "${routine}_s" conveyor_GF \
  "${routine}_GF" ratio
# The field of one JSON document on stdin (conveyor's result row, or the peer's single line).
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("results", [d])[0]["'"$1"'"])'; }
for grid in $GRIDS; do
  p=${grid%x*}; q=${grid#*x}
  [[ "$p" =~ ^[1-9][0-9]*$ && "$q" =~ ^[1-9][0-9]*$ ]] || { echo "compare: bad grid '$grid' (PxQ)" >&2; exit 2; }
  r=$((p * q))
  per_rank=$(( cores / r > 0 ? cores / r : 1 ))
  best_c=0; best_s=0
  for _ in $(seq 1 "$REPEAT"); do
    c=$(mpirun --oversubscribe --bind-to none -np "$r" "$conveyor" "$APP" --n "$N" --block "$BLOCK" \
          --grid "${p}x${q}" --cpus "$per_rank" $EXTRA --json | field time_s)
    s=$(OPENBLAS_NUM_THREADS=$per_rank mpirun --oversubscribe --bind-to none -np "$r" "$peer" "$N" "$BLOCK" "$p" "$q" |
          field time_s)
    best_c=$(python3 -c "print($c if $best_c == 0 else min($best_c, $c))")
    best_s=$(python3 -c "print($s if $best_s == 0 else min($best_s, $s))")
  done
  python3 - "$r" "${p}x${q}" "$best_c" "$best_s" "$N" "$APP" <<'EOF'
import sys
ranks, grid, c, s, n, app = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
flop = n**3 / 3 if app == "cholesky" else 4 * n**3 / 3
print(f"{ranks:<6} {grid:<5} {c:12.3f} {s:12.3f} {flop / c / 1e9:12.2f} {flop / s / 1e9:12.2f} {s / c:8.2f}")
EOF
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
