#!/usr/bin/env bash
# Distributed Cholesky side by side with ScaLAPACK's pdpotrf, in one run, for 2 and 4 ranks:
# `conveyor cholesky --grid PxQ` (one runtime per rank, tiles 2D block-cyclic) and
# bench_scalapack_pdpotrf (same matrix, block size and grid), alternating, best of REPEAT each.
# Prints GFLOP/s (n^3/3 both), the ratio, and the machine load before the run (run it quiet).
#
#   scripts/setup-deps.sh --bench    # libscalapack-openmpi-dev
#   cmake --build build/release --target conveyor_cli bench_scalapack_pdpotrf
#   N=4096 BLOCK=256 REPEAT=3 bench/distributed/compare.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build/release}
conveyor=$build/tools/conveyor/conveyor
peer=$build/bench/bench_scalapack_pdpotrf
N=${N:-4096}
BLOCK=${BLOCK:-256}
REPEAT=${REPEAT:-3}
RANKS=${RANKS:-"2 4"}
[ -x "$conveyor" ] || { echo "compare: build conveyor_cli first" >&2; exit 2; }
[ -x "$peer" ] || { echo "compare: build bench_scalapack_pdpotrf (needs libscalapack-openmpi-dev)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
cores=$(nproc)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cores cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-5s %12s %12s %8s\n' ranks grid conveyor pdpotrf ratio
for r in $RANKS; do
  p=1; for d in $(seq 1 "$r"); do [ $((d * d)) -le "$r" ] && [ $((r % d)) -eq 0 ] && p=$d; done
  q=$((r / p))
  per_rank=$(( cores / r > 0 ? cores / r : 1 ))
  best_c=0; best_s=0
  for i in $(seq 1 "$REPEAT"); do
    c=$(mpirun --oversubscribe --bind-to none -np "$r" "$conveyor" cholesky --n "$N" --block "$BLOCK" \
          --grid "${p}x${q}" --cpus "$per_rank" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["gflops"])')
    s=$(OPENBLAS_NUM_THREADS=$per_rank mpirun --oversubscribe --bind-to none -np "$r" "$peer" "$N" "$BLOCK" "$p" "$q" |
          python3 -c 'import json,sys; print(json.load(sys.stdin)["gflops"])')
    best_c=$(python3 -c "print(max($best_c, $c))"); best_s=$(python3 -c "print(max($best_s, $s))")
  done
  printf '%-6s %-5s %12.2f %12.2f %8.2f\n' "$r" "${p}x${q}" "$best_c" "$best_s" \
    "$(python3 -c "print($best_c / $best_s)")"
done
