#!/usr/bin/env bash
# `conveyor qr` and `conveyor cholesky` on the OpenCL device with the own kernels and with CLBlast
# (CONVEYOR_OPENCL_BLAS=own|clblast), next to LAPACKE geqrf on the same cores, interleaved round by
# round so that a change in the machine's load falls on every column alike; medians of ROUNDS.
# BEFORE, a second `conveyor` binary (an earlier build), adds its rows for a before/after in the
# same rounds. The load average is printed before and after.
#   bench/opencl/clblast_apps.sh [BUILD_DIR] [N] [ROUNDS] [BEFORE]   (docs/results/clblast.md)
set -euo pipefail
build=${1:-build/release}
n=${2:-2048}
rounds=${3:-3}
before=${4:-}
conveyor=$build/tools/conveyor/conveyor
lapacke=$build/bench/qr_geqrf_lapacke
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# name|command: each round runs every one once; the conveyor ones print JSON.
qr="qr --devices opencl:0 --n $n --check --json -q"
chol="cholesky --devices cpu,opencl:0 --n $n --check --json -q --offload"
runs=(
  "qr own|CONVEYOR_OPENCL_BLAS=own $conveyor $qr"
  "qr clblast|CONVEYOR_OPENCL_BLAS=clblast $conveyor $qr"
  "qr 256 own|CONVEYOR_OPENCL_BLAS=own $conveyor $qr --block 256"
  "qr 256 clblast|CONVEYOR_OPENCL_BLAS=clblast $conveyor $qr --block 256"
  "geqrf lapacke|$lapacke $n d 1"
  "chol own g,s,t|CONVEYOR_OPENCL_BLAS=own $conveyor $chol gemm,syrk,trsm"
  "chol clblast g,s,t|CONVEYOR_OPENCL_BLAS=clblast $conveyor $chol gemm,syrk,trsm"
  "chol own gemm|CONVEYOR_OPENCL_BLAS=own $conveyor $chol gemm"
  "chol clblast gemm|CONVEYOR_OPENCL_BLAS=clblast $conveyor $chol gemm"
)
if [[ -n $before ]]; then
  runs+=(
    "before qr|$before $qr"
    "before qr 256|$before $qr --block 256"
    "before chol gemm|$before $chol gemm"
  )
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  for i in "${!runs[@]}"; do
    cmd=${runs[$i]#*|}
    env bash -c "$cmd" > "$out/$i.$r.json"
  done
done
python3 - "$out" "$rounds" "${runs[@]}" <<'PY'
import json, statistics, sys
out, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"{'run':20} {'block':>5} {'median s':>9} {'GFLOP/s':>8}  check   times s")
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
    print(f"{name:20} {block:>5} {med:9.3f} {flops / med:8.2f}  {check:7} {' '.join(f'{t:.3f}' for t in times)}")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
