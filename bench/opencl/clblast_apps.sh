#!/usr/bin/env bash
# `conveyor qr` and `conveyor cholesky` on the OpenCL device with the own kernels and with CLBlast
# (CONVEYOR_OPENCL_BLAS=own|clblast), next to LAPACKE geqrf on the same cores, interleaved round by
# round so that a change in the machine's load falls on every column alike; medians of ROUNDS.
#   bench/opencl/clblast_apps.sh [BUILD_DIR] [N] [ROUNDS]      (docs/results/clblast.md)
set -euo pipefail
build=${1:-build/release}
n=${2:-2048}
rounds=${3:-3}
conveyor=$build/tools/conveyor/conveyor
lapacke=$build/bench/qr_geqrf_lapacke
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name|command: each round runs every one once; the conveyor ones print JSON.
runs=(
  "qr own|CONVEYOR_OPENCL_BLAS=own $conveyor qr --devices opencl:0 --n $n --check --json -q"
  "qr clblast|CONVEYOR_OPENCL_BLAS=clblast $conveyor qr --devices opencl:0 --n $n --check --json -q"
  "qr 256 own|CONVEYOR_OPENCL_BLAS=own $conveyor qr --devices opencl:0 --n $n --block 256 --check --json -q"
  "qr 256 clblast|CONVEYOR_OPENCL_BLAS=clblast $conveyor qr --devices opencl:0 --n $n --block 256 --check --json -q"
  "geqrf lapacke|$lapacke $n d 1"
  "cholesky own|CONVEYOR_OPENCL_BLAS=own $conveyor cholesky --devices cpu,opencl:0 --offload gemm --n $n --check --json -q"
  "cholesky clblast|CONVEYOR_OPENCL_BLAS=clblast $conveyor cholesky --devices cpu,opencl:0 --offload gemm --n $n --check --json -q"
)
for r in $(seq "$rounds"); do
  for i in "${!runs[@]}"; do
    cmd=${runs[$i]#*|}
    env bash -c "$cmd" > "$out/$i.$r.json"
  done
done
python3 - "$out" "$rounds" "${runs[@]}" <<'PY'
import json, statistics, sys
out, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"{'run':18} {'block':>5} {'median s':>9} {'GFLOP/s':>8}  check   times s")
for i, run in enumerate(runs):
    name = run.split('|')[0]
    times, block, check, flops = [], '-', '-', None
    for r in range(1, rounds + 1):
        d = json.load(open(f"{out}/{i}.{r}.json"))
        if 'results' in d:
            row = d['results'][0]
            times.append(row['time_s'] if 'time_s' in row else row['median_time_s'])
            block, check = row['block'], row['check']
            flops = row['gflops'] * times[-1]
        else:
            times.append(d['time_s'])
            flops = d['gflops'] * d['time_s']
    med = statistics.median(times)
    print(f"{name:18} {block:>5} {med:9.3f} {flops / med:8.2f}  {check:7} {' '.join(f'{t:.3f}' for t in times)}")
PY
