#!/usr/bin/env bash
# conveyor stream --variant tuned side by side with likwid-bench, on the same thread counts and
# array length, with the ratio conveyor / likwid per kernel and thread count.
#
#   bench/stream_vs_likwid.sh [--threads 1-N] [--elements N] [--runs R] [--repeats K] [--conveyor PATH]
#
# Like with like:
# - kernels: likwid's non-temporal-store kernels count bytes as STREAM does (no write-allocate),
#   `likwid-bench -l KERNEL` prints them: copy_mem_* 16 B/element, stream_mem_* (a = b*s + c,
#   STREAM's Triad) 24 B, ddot_* 16 B; Conveyor's tuned Copy/Triad/Dot use non-temporal stores too.
#   Scale and Add have no likwid counterpart and are not compared.
# - SIMD width: the *_avx512 kernels where the CPU has AVX-512F (Conveyor's tuned set picks the
#   same), else *_avx.
# - units: likwid's MByte/s is 1e6 B/s; both sides are printed in GB/s = 1e9 B/s.
# - statistic: likwid reports data volume / time over all its iterations (a mean); Conveyor's
#   median of its repetitions is the comparable figure, and the ratio uses it. Conveyor's best is
#   printed as well. Each side runs R times, alternating, and the highest figure of the R runs is
#   kept, which damps interference from other work on the machine.
# - sizes: likwid sizes are kB = 1000 B over all streams, so the array length is rounded up to a
#   multiple of 16000 elements (a whole number of kB per array, a multiple of likwid's loop stride).
# - placement: likwid's N domain fills hardware threads in order; Conveyor runs with --bind compact.
# - pages: Conveyor asks for transparent huge pages by default, likwid does not; Conveyor also runs
#   with --no-huge-pages, and both ratios are printed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
conveyor=${CONVEYOR:-$here/build/release/tools/conveyor/conveyor}
threads=""
elements=""
runs=3
repeats=20
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --elements) elements=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --conveyor) conveyor=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "stream_vs_likwid.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v likwid-bench >/dev/null || {
  echo "stream_vs_likwid.sh: likwid-bench not found (scripts/setup-deps.sh --bench installs it)" >&2
  exit 1
}
[ -x "$conveyor" ] || { echo "stream_vs_likwid.sh: $conveyor not built (make build)" >&2; exit 1; }
[ -n "$threads" ] || threads="1-$(nproc)"

# Array length: the STREAM minimum Conveyor picks by default, rounded up for likwid.
if [ -z "$elements" ]; then
  elements=$("$conveyor" stream --threads 1 --kernels copy --repeats 2 --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["elements"])')
fi
# K/M/G as Conveyor reads them: powers of 1024.
elements=$(python3 -c '
import sys
t = sys.argv[1].strip()
scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(t[-1:].upper(), 1)
print(int(float(t[:-1] if scale > 1 else t) * scale))' "$elements")
elements=$(( (elements + 15999) / 16000 * 16000 ))
kb_per_array=$(( elements * 8 / 1000 ))

suffix=avx
grep -qw avx512f /proc/cpuinfo && suffix=avx512
declare -A likwid_kernel=([copy]=copy_mem_$suffix [triad]=stream_mem_$suffix [dot]=ddot_$suffix)
declare -A streams=([copy]=2 [triad]=3 [dot]=2)

expand() {  # "1-4,8" -> "1 2 3 4 8"
  python3 -c '
import sys
out = []
for part in sys.argv[1].split(","):
    a, _, b = part.partition("-")
    out += range(int(a), int(b or a) + 1)
print(" ".join(map(str, out)))' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in $(expand "$threads"); do
  for run in $(seq 1 "$runs"); do
    "$conveyor" stream --variant tuned --bind compact --threads "$t" --elements "$elements" \
      --repeats "$repeats" --kernels copy,triad,dot --json >"$tmp/conveyor_${t}_${run}.json"
    "$conveyor" stream --variant tuned --bind compact --threads "$t" --elements "$elements" \
      --repeats "$repeats" --kernels copy,triad,dot --no-huge-pages --json \
      >"$tmp/conveyor4k_${t}_${run}.json"
    for k in copy triad dot; do
      likwid-bench -t "${likwid_kernel[$k]}" -i "$repeats" \
        -w "N:$(( kb_per_array * ${streams[$k]} ))kB:$t" >"$tmp/likwid_${k}_${t}_${run}.txt" 2>&1 ||
        { echo "likwid-bench -t ${likwid_kernel[$k]} failed:" >&2; tail -5 "$tmp/likwid_${k}_${t}_${run}.txt" >&2; exit 1; }
    done
  done
done

python3 - "$tmp" "$elements" "$suffix" "$runs" "$repeats" <<'PY'
import glob, json, os, re, sys
tmp, elements, suffix, runs, repeats = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
conv, conv4k, lik = {}, {}, {}
for pattern, table in (("conveyor_*.json", conv), ("conveyor4k_*.json", conv4k)):
    for path in glob.glob(os.path.join(tmp, pattern)):
        for row in json.load(open(path))["results"]:
            key = (row["threads"], row["kernel"])
            best, median = table.get(key, (0.0, 0.0))
            table[key] = (max(best, row["best_gbs"]), max(median, row["median_gbs"]))
for path in glob.glob(os.path.join(tmp, "likwid_*.txt")):
    _, kernel, threads, _ = os.path.basename(path)[:-4].split("_")
    m = re.search(r"MByte/s:\s+([0-9.]+)", open(path).read())
    key = (int(threads), kernel)
    lik[key] = max(lik.get(key, 0.0), float(m.group(1)) / 1000.0)  # MByte/s = 1e6 B/s
print(f"conveyor stream --variant tuned vs likwid-bench (*_{suffix}), {elements} elements per array "
      f"({elements * 8 / 2**20:.1f} MiB), {repeats} iterations, best of {runs} runs each side")
print("GB/s = 1e9 B/s; both count bytes STREAM-style (non-temporal stores, no write-allocate)")
print(f"{'threads':>7} {'kernel':<6} {'conveyor best':>13} {'conveyor median':>15} "
      f"{'median 4KiB pages':>17} {'likwid':>8} {'ratio':>6} {'ratio 4KiB':>10}")
for key in sorted(conv):
    if key not in lik:
        continue
    best, median = conv[key]
    median4k = conv4k.get(key, (0.0, 0.0))[1]
    print(f"{key[0]:>7} {key[1]:<6} {best:>13.2f} {median:>15.2f} {median4k:>17.2f} {lik[key]:>8.2f} "
          f"{median / lik[key]:>6.3f} {median4k / lik[key]:>10.3f}")
print("ratio = conveyor median / likwid (huge pages, Conveyor's default); ratio 4KiB = the same with "
      "--no-huge-pages")
PY
