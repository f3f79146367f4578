#!/usr/bin/env bash
# Checks Conveyor's GPU half on a machine with an NVIDIA GPU, in one command: every test of the
# build (the CUDA-instantiated ones run there instead of skipping), the differential random-graph
# test on cuda:0 alone and beside CPU workers (with and without a device-memory limit, many seeds,
# each bounded), compute-sanitizer on the CUDA runtime tests, the C API example on CUDA, a 2-rank
# MPI Cholesky with cuda:local, and the performance rows of docs/gpu.md, each beside its peer.
# Writes gpu-check.json (every check and row) and gpu-check.md (the tables) into --out.
#
#   scripts/gpu-check.sh [--build DIR] [--out DIR] [--seeds N] [--graphs N] [--sizes LIST]
#                        [--sections LIST] [--time-limit S] [--quick]
#
#   --build DIR      the build tree (default build/release; a CUDA build, sm_90 by default)
#   --out DIR        where results go (default $OUT/gpu-check where $OUT is set, else
#                    gpu-check-results)
#   --seeds N        differential seeds (default 320; >= 300 in all for the issue's bar)
#   --graphs N       random graphs per differential seed, over all its configurations (default 2000)
#   --sizes LIST     Cholesky orders, comma-separated (default 4096,8192,16384,32768)
#   --sections LIST  comma-separated subset of: tests,differential,sanitizer,capi,mpi,python,qr,stencil,
#                    cholesky,overhead,ooc,hybrid,stream,probe,pipeline,table3,tiles,big (default:
#                    all; they run in this order, most important first)
#   --time-limit S   stop starting work after S seconds and bound every command by what is left;
#                    what did not run is reported as "not run" (default: no limit)
#   --quick          small sizes everywhere (a smoke run of the script itself, minutes)
#
# The QR and stencil-kernel rows of issue 35 alone, in about 5 minutes on an H100 or H200 (each
# command bounded; the limit stops the script short of 9 minutes whatever happens):
#
#   scripts/gpu-check.sh --sections qr,stencil --time-limit 480
#
# Where the machine lacks Conveyor's Debian packages, unpack scripts/gpu-bundle.sh's tarball at the
# repository root first: this script then finds bundle/ and sets the library paths (docs/gpu.md).
# Exit status: 0 when every correctness check passed (performance rows are reported, not judged
# here: docs/results.md compares them with their targets), 1 otherwise, 2 for bad arguments.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

build=build/release out=${OUT:+$OUT/gpu-check} seeds=320 graphs=2000 sections=all quick=0 limit=0
sizes=4096,8192,16384,32768
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --graphs) graphs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --sections) sections=$2; shift 2 ;;
    --time-limit) limit=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-gpu-check-results}
for v in seeds graphs limit; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "gpu-check: --${v/limit/time-limit} takes a count (got '${!v}')" >&2; exit 2; }
done
[[ "$sizes" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "gpu-check: --sizes takes orders like 4096,8192 (got '$sizes')" >&2; exit 2; }
case "$out" in /*) ;; *) out=$repo/$out ;; esac
asked() { [ "$sections" = all ] || [[ ",$sections," == *",$1,"* ]]; }

# --- environment: the carried bundle, if any -------------------------------------------------------
if [ -d bundle ]; then
  # A library the machine has already is the machine's (as new or newer, and what its own tools
  # load): set the carried copy aside, but for the ones the build must get as it was built.
  mkdir -p bundle/lib-set-aside
  for f in bundle/lib/*; do
    name=$(basename "$f")
    [[ "$name" =~ ^lib(openblas|lapack|blas|OpenCL|scalapack) ]] && continue
    ldconfig -p | grep -q "^[[:space:]]*$name " && mv "$f" bundle/lib-set-aside/
  done
  export LD_LIBRARY_PATH="$repo/bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$repo/bundle/bin:$PATH"
  # Open MPI finds its plugins and help files at the absolute paths it was built for; put them
  # there where nothing is (never over an existing file).
  if [ -d bundle/sysroot ] && [ "$(id -u)" = 0 ]; then
    (cd bundle/sysroot && find . -type f) | while read -r f; do
      [ -e "/$f" ] || { mkdir -p "$(dirname "/$f")" && cp -a "bundle/sysroot/$f" "/$f"; }
    done
    for tool in mpirun mpiexec; do
      [ -e /usr/bin/$tool ] || ln -s "$repo/bundle/bin/mpirun" /usr/bin/$tool
    done
  fi
  # The tests were built with absolute paths to the source and build trees.
  src=$(cat bundle/source_dir 2>/dev/null || true)
  if [ -n "$src" ] && [ "$src" != "$repo" ] && [ ! -e "$src" ]; then
    mkdir -p "$(dirname "$src")" && ln -s "$repo" "$src"
  fi
fi
# Debian's OpenBLAS 0.3.21 does not know recent Xeons and would pick its Prescott kernels.
grep -q avx512f /proc/cpuinfo && export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}
export PATH="$PATH:/usr/local/cuda/bin"  # compute-sanitizer
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export XDG_CACHE_HOME="$out/cache"  # models and calibration of this run only

conveyor=$build/tools/conveyor/conveyor
cusolver=$build/bench/cholesky_potrf_cusolver
[ -x "$conveyor" ] || { echo "gpu-check: no conveyor in $build (build it, or unpack the bundle)" >&2; exit 2; }
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 ||
  { echo "gpu-check: no NVIDIA GPU here (nvidia-smi -L failed)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/logs" "$out/rows" "$XDG_CACHE_HOME"
checks=$out/checks.jsonl
touch "$checks"
jobs=$(nproc)

# The time limit: a section starts only with time left, and every command is bounded by what is left.
deadline=$((limit > 0 ? limit : 1 << 30))
left() { echo $((deadline - SECONDS)); }
# cap=S before a command bounds it further (one section's share of a limited run).
bounded() {
  local l; l=$(left)
  [ -n "${cap:-}" ] && [ "$cap" -lt "$l" ] && l=$cap
  [ "$l" -gt 5 ] || return 124
  timeout --kill-after 5 "$l" "$@"
}
# want SECTION: asked for, and time left to start it (else it is recorded as not run).
want() {
  asked "$1" || return 1
  [ "$(left)" -gt 10 ] && return 0
  printf '{"check": "%s", "status": "not run", "rc": -1, "seconds": 0, "detail": "time limit"}\n' \
    "$1" >> "$checks"
  echo "-- $1: not run (time limit)"
  return 1
}

# check NAME COMMAND...: runs it, logs its output, records pass/fail with its time.
check() {
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name: $*" | cut -c1-200
  bounded "$@" > "$out/logs/$name.log" 2>&1
  local rc=$?
  local status=pass
  [ $rc -eq 0 ] || status=fail
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && status=timeout
  printf '{"check": "%s", "status": "%s", "rc": %d, "seconds": %d, "detail": %s}\n' "$name" \
    "$status" $rc $((SECONDS - t0)) "$(tail -c 600 "$out/logs/$name.log" | python3 -c \
      'import json,sys; print(json.dumps(sys.stdin.read()))')" >> "$checks"
  echo "   $status ($((SECONDS - t0)) s)"
  return $rc
}
# row FILE COMMAND...: a performance run whose JSON goes to rows/FILE.
row() {
  local file=$1; shift
  local t0=$SECONDS
  echo "-- $file: $*" | cut -c1-200
  bounded "$@" > "$out/rows/$file" 2> "$out/logs/$file.err" || echo "   failed (rc $?): $(tail -n 2 "$out/logs/$file.err")"
  echo "   ($((SECONDS - t0)) s)"
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$out/gpu.txt"
"$conveyor" devices --json > "$out/devices.json" 2> /dev/null
echo "gpu-check on $(cat "$out/gpu.txt"), $(nproc) cores"

# --- correctness -------------------------------------------------------------------------------------
# compute-sanitizer serialises the GPU work of one process: it runs beside the tests and the
# differential seeds, on the CUDA runtime tests (per-device instances on cuda:0, the CUDA backend,
# the tile kernels).
if want sanitizer && command -v compute-sanitizer > /dev/null; then
  filter='*cuda_0*:Cuda*:*Cuda*'
  for tool in memcheck racecheck; do
    cap=$((limit > 0 ? limit / 2 : 1800)) check "sanitizer-$tool" compute-sanitizer --tool $tool \
      --error-exitcode 9 "$build/tests/conveyor_unit_tests" --gtest_filter="$filter" &
  done
fi

if want tests; then
  # The whole suite; its CUDA instances run here. Left out: the installed-package test (it needs a
  # compiler toolchain with Conveyor's dependencies) and the source checks (docs in sync, layering:
  # they run the build machine's cmake and python3 by absolute path, and test no device).
  cap=$((limit > 0 ? limit / 4 : 3600)) check ctest ctest --test-dir "$build" -j "$jobs" \
    --timeout $((limit > 0 ? limit / 5 : 600)) --output-on-failure -E 'external_package|docs.examples_in_sync|layering' \
    --output-junit "$out/ctest-junit.xml"
fi

if want differential; then
  # Seeds in parallel, each bounded: CONVEYOR_DIFF_MATCH keeps the configurations on cuda:0 (alone,
  # beside 2 CPU workers; unlimited and with room for a few buffers), on the same graphs per seed.
  # A seed that did not start before the section's share of the time limit is counted, not failed.
  n=$seeds
  [ $quick = 1 ] && n=16
  diff_seed() {
    [ -e "$4/stop" ] && { echo "$1" >> "$4/not-started"; return 0; }
    CONVEYOR_DIFF_MATCH=cuda:0 CONVEYOR_DIFF_SEED=$1 CONVEYOR_DIFF_GRAPHS=$2 \
      timeout "$5" "$3" > "$4/seed-$1.log" 2>&1 && { rm -f "$4/seed-$1.log"; echo "$1" >> "$4/passed"; }
  }
  export -f diff_seed
  d=$out/logs/differential
  mkdir -p "$d"
  share=$((limit > 0 ? limit / 4 : 1 << 30)) each=$((limit > 0 ? 90 : 240))
  # (Its output goes nowhere: a sleep left holding this script's stdout would keep a pipe open.)
  (sleep "$share" && touch "$d/stop") > /dev/null 2>&1 & stopper=$!
  cap=$((share + each + 10)) check differential bash -c "seq 50000 $((50000 + n - 1)) | xargs -P $jobs -I{} bash -c \
    'diff_seed {} $graphs $build/tests/conveyor_differential_tests $d $each || echo seed {} failed' ;
    echo \"\$(cat $d/passed 2>/dev/null | wc -l) of $n seeds passed, \$(cat $d/not-started 2>/dev/null | wc -l) not started\";
    ! ls $d | grep -q '^seed-'"
  pkill -P $stopper 2> /dev/null; kill $stopper 2> /dev/null
fi

if want capi; then
  check capi-cuda "$build/examples/example_c_cholesky" --device cuda:0 --tiles 16 --block 64
fi

if want mpi && command -v mpirun > /dev/null; then
  check mpi-cuda-local mpirun --oversubscribe --bind-to none -np 2 \
    --mca btl_vader_single_copy_mechanism none "$conveyor" cholesky --n 4096 --block 256 \
    --grid 1x2 --devices cpu,cuda:local --offload gemm --cpus 4 --check --json
fi

if want python; then
  # The Python package on this machine's Python (another version than the build machine's): the
  # bundle's module ingredients built here (scripts/python-module), else the build tree's module.
  # Then the package's tests, and its CuPy and PyTorch tests alone, which must run here, not skip.
  pymodule=$build/python
  if [ -d bundle/python ]; then
    pymodule=$repo/build/python-module
    cap=300 check python-module bash -c "cmake -S scripts/python-module -B '$pymodule' -G Ninja \
      -DCONVEYOR_BUNDLE='$repo/bundle' > /dev/null && cmake --build '$pymodule' -j $jobs"
  fi
  pytest_here() {
    PYTHONPATH="$pymodule:$repo/python" CONVEYOR_CLI=$(realpath "$conveyor") python3 -m pytest -q -rs \
      -p no:cacheprovider "$@"
  }
  export -f pytest_here; export pymodule repo conveyor
  cap=300 check python-tests bash -c 'pytest_here python/tests'
  cap=120 check python-gpu-arrays bash -c 'set -o pipefail; pytest_here -k "torch or cupy" python/tests |
    tee /dev/stderr | { ! grep -q SKIPPED; }'
fi
wait  # the sanitizers

# --- QR and the stencil's tile kernels on the GPU (issue 35): checks, then rows beside peers ---------
if want qr; then
  # Every task on the GPU (cuSOLVER geqrf, cuBLAS gemm/trmm), checked (residual, orthogonality), both
  # precisions; then a ragged last tile (n 1000, tile 256: 232) with ib dividing neither width; then
  # the device-kernel unit tests on cuda:0 (each kernel against LAPACKE on ragged tiles, Q^T and Q,
  # whole factorisations alone and beside a CPU worker, Q formed on the GPU) and a matrix and its Q
  # in cudaMalloc'd memory.
  for p in d s; do
    cap=120 check "qr-check-1024-$p" "$conveyor" qr --n 1024 --block 256 --ib 32 --precision $p \
      --devices cuda:0 --check --json
  done
  cap=120 check qr-check-1000-ragged "$conveyor" qr --n 1000 --block 256 --ib 40 --precision s,d \
    --devices cuda:0 --check --json
  cap=180 check qr-unit-cuda "$build/tests/conveyor_unit_tests" \
    --gtest_filter='Devices/QrDeviceKernels.*/cuda_0:DeviceResidentQr.OnCuda*'
  # The GPU alone (default tile) against one cuSOLVER geqrf host to host, medians of 3 (both print
  # median_time_s), each size and precision side by side; then the cores and the GPU together.
  qr_sizes="4096 16384"; [ $quick = 1 ] && qr_sizes="2048 4096"
  for n in $qr_sizes; do
    for p in d s; do
      cap=120 row "qr-cuda-$n-$p.json" "$conveyor" qr --n "$n" --precision $p --devices cuda:0 \
        --repeat 3 --json
      cap=60 row "qr-cusolver-$n-$p.json" "$build/bench/qr_geqrf_cusolver" "$n" $p 3
    done
  done
  n=${qr_sizes##* }
  cap=150 row "qr-all-$n-d.json" "$conveyor" qr --n "$n" --devices all --repeat 3 --json
  # The host's PoCL (AVX-512: the CPU OpenCL gemm's 64-byte block, unmeasured elsewhere) against
  # LAPACKE geqrf on the same 16 cores.
  cap=90 row qr-opencl-4096-d.json "$conveyor" qr --n 4096 --devices opencl:0 --check --json
  cap=30 row qr-lapacke-4096-d.json "$build/bench/qr_geqrf_lapacke" 4096 d 3
fi
if want stencil; then
  # One 2048 x 2048 tile, no runtime: the app's tile kernel and its temporal-block kernel (depth 4)
  # against the plain loop, per sweep, bit for bit (exit 1 on a mismatch); its JSON goes to rows/.
  cap=120 check stencil-tile-kernel "$build/bench/stencil_tile_kernel_cuda" 2048 100 5 4 &&
    tail -n 1 "$out/logs/stencil-tile-kernel.log" > "$out/rows/stencil-tile-kernel.json"
  # The loop itself: checked bit for bit on a small grid, then in core and host to host at 16384.
  cap=60 check stencil-loop-check "$build/bench/stencil_jacobi_cuda" 1000 7 1 --check
  cap=120 row stencil-loop-16384.json "$build/bench/stencil_jacobi_cuda" 16384 100 3
fi

# --- performance, each beside its peer (most important first) -------------------------------------------
ns=${sizes//,/ }
[ $quick = 1 ] && ns="2048 4096"
largest=${ns##* }
if want cholesky; then
  # The GPU alone, every task on it, with the default tile, against one cuSOLVER potrf host to host
  # (copy in, factorise, copy out).
  for n in $ns; do
    for p in d s; do
      row "gpu-$n-$p-default.json" "$conveyor" cholesky --n $n --precision $p --devices cuda:0 \
        --repeat 3 --json
      row "cusolver-$n-$p.json" "$cusolver" $n $p 3 nocheck
    done
  done
fi
if want overhead; then
  # 32 x 32 tiles of 128: 5984 tasks, each a few microseconds of GPU work.
  row overhead.json "$conveyor" cholesky --n 4096 --block 128 --devices cuda:0 --repeat 3 --json \
    --trace "$out/rows/overhead-trace.json"
  # The runtime's own cost per device task, no kernel (bench/device_task_cost.cpp): one chain and
  # 8 independent ones, 4 and 8 tasks in flight, run-ahead off and on.
  for width in 1 8; do for flight in 4 8; do for ahead in 0 16; do
    row "task-cost-w$width-f$flight-r$ahead.json" "$build/bench/bench_device_task_cost" \
      --device cuda:0 -i 20000 --width $width --in-flight $flight --run-ahead $ahead
  done; done; done
fi
if want ooc; then
  n=32768; [ $quick = 1 ] && n=4096
  row "ooc-$n-2GiB.json" "$conveyor" cholesky --n $n --devices cuda:0 --device-memory 2GiB \
    --repeat 3 --check --json
  [ -s "$out/rows/gpu-$n-d-default.json" ] && cp "$out/rows/gpu-$n-d-default.json" "$out/rows/incore-$n.json" ||
    row "incore-$n.json" "$conveyor" cholesky --n $n --devices cuda:0 --repeat 3 --json
fi
if want hybrid; then
  # Cores + GPU with the default (model) scheduler against the GPU alone, largest order first; the
  # models are calibrated by a first run at each size.
  for n in $(echo $ns | tr ' ' '\n' | sort -rn); do
    bounded "$conveyor" cholesky --n $n --devices all --calibrate > "$out/logs/calibrate-$n.log" 2>&1
    for r in 1 2 3; do
      trace=(); [ $r = 1 ] && trace=(--trace "$out/rows/all-$n-trace.json")
      row "all-$n-$r.json" "$conveyor" cholesky --n $n --devices all --json "${trace[@]}"
      row "cuda-$n-$r.json" "$conveyor" cholesky --n $n --devices cuda:0 --json
    done
  done
fi
if want stream; then
  # Arrays past the STREAM size rule (4x the last-level cache: 240 MiB on an H100 or H200).
  stream_sizes="1GiB 4GiB"; [ $quick = 1 ] && stream_sizes=256MiB
  for s in $stream_sizes; do
    row "stream-$s.json" "$conveyor" stream --device cuda:0 --variant both --size $s --json
    if [ -x peer/cuda-stream ]; then
      elems=$(( $(numfmt --from=iec-i ${s%B}) / 8 ))
      row "babelstream-$s.txt" peer/cuda-stream --arraysize $elems --numtimes 20 --csv
    fi
  done
fi
want probe && row probe.json "$conveyor" probe --device cuda:0 --json
want pipeline && row pipeline.json "$conveyor" stream --pipeline cuda:0 --kernels scale,triad,dot \
  --json
if want table3; then
  n=$largest
  row table3.json "$conveyor" cholesky --n $n --block $((n / 32)) --devices cpu,cuda:0 \
    --offload gemm --coherence naive,coherent --no-warmup --json
fi
if want tiles; then
  # The tiles around the default, to show whether the default is the right one.
  for n in $ns; do
    for p in d s; do
      for b in 512 1024 2048; do
        [ $b -ge $n ] && continue
        row "gpu-$n-$p-$b.json" "$conveyor" cholesky --n $n --precision $p --block $b \
          --devices cuda:0 --repeat 3 --json
      done
    done
  done
fi
if want big && [ $quick = 0 ]; then
  check big-65536 "$conveyor" cholesky --n 65536 --devices cuda:0 --check --json
fi

python3 scripts/gpu_report.py "$out"
! grep -q '"status": "\(fail\|timeout\)"' "$checks"
