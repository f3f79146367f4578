#!/usr/bin/env bash
# The one-node apps side by side with their standard peers, in one run: `conveyor qr` against one
# LAPACKE dgeqrf call (OpenBLAS, every thread) and `conveyor stencil` against the plain OpenMP loop
# (bench/stencil/jacobi_openmp.cpp), on the same cores, alternating, best of REPEAT each. Prints the
# best times, the rates and the ratio (conveyor / peer rate), with the machine's load before and
# after (run it quiet).
#
#   cmake --build build/release --target conveyor_cli qr_geqrf_lapacke stencil_jacobi_openmp
#   bench/peers.sh                                   # qr n = 4096 and 8192, stencil n = 4096
#   QR_N="8192" STENCIL_N="4096 8192" SWEEPS=20 REPEAT=5 bench/peers.sh
#   QR_N="100000x64 20000x256 4000x1000" STENCIL_N="" bench/peers.sh   # tall: MxN
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build/release}
conveyor=$build/tools/conveyor/conveyor
geqrf=$build/bench/qr_geqrf_lapacke
jacobi=$build/bench/stencil_jacobi_openmp
QR_N=${QR_N:-"4096 8192"}
STENCIL_N=${STENCIL_N:-"4096"}
SWEEPS=${SWEEPS:-20}
REPEAT=${REPEAT:-3}
for exe in "$conveyor" "$geqrf" "$jacobi"; do
  [ -x "$exe" ] || { echo "peers: build $(basename "$exe") first (see the header of $0)" >&2; exit 2; }
done
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# A field of the first result row of a JSON document on stdin (conveyor's report or a peer's line).
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("results", [d])[0]["'"$1"'"])'; }
best() { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }
printf '%-8s %-11s %12s %12s %8s  %s\n' app n conveyor_s peer_s ratio "rate (conveyor / peer)"
for size in $QR_N; do
  # N (square) or MxN (tall: M rows, N columns)
  n=${size#*x}; m=${size%x*}
  c=(); p=()
  for _ in $(seq 1 "$REPEAT"); do
    c+=("$("$conveyor" qr --m "$m" --n "$n" --json | field time_s)")
    p+=("$("$geqrf" "$n" d 1 "$m" | field time_s)")
  done
  bc=$(best "${c[@]}"); bp=$(best "${p[@]}")
  python3 -c "import sys; m, n, c, p = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]); f = (2 * m * n**2 - 2 * n**3 / 3) / 1e9; print(f'{\"qr\":<8} {sys.argv[5]:<11} {c:12.3f} {p:12.3f} {p / c:8.2f}  {f / c:.1f} / {f / p:.1f} GFLOP/s (dgeqrf)')" "$m" "$n" "$bc" "$bp" "$size"
done
for n in $STENCIL_N; do
  c=(); p=()
  for _ in $(seq 1 "$REPEAT"); do
    c+=("$("$conveyor" stencil --n "$n" --sweeps "$SWEEPS" --json | field time_s)")
    p+=("$("$jacobi" "$n" "$SWEEPS" 1 | field time_s)")
  done
  bc=$(best "${c[@]}"); bp=$(best "${p[@]}")
  python3 -c "import sys; n, t, c, p = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]); b = t * 16 * n * n / 1e9; print(f'{\"stencil\":<8} {n:<11} {c:12.3f} {p:12.3f} {p / c:8.2f}  {b / c:.1f} / {b / p:.1f} GB/s ({t} sweeps, OpenMP loop)')" "$n" "$SWEEPS" "$bc" "$bp"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
