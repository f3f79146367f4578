#!/usr/bin/env python3
"""CPU-only Cholesky GFLOP/s, side by side in one run: conveyor cholesky (tiles on pinned CPU
workers, one OpenBLAS thread per task), LAPACKE potrf from OpenBLAS with all threads (one call on
the whole matrix), and StarPU's cholesky_implicit example (single precision only: that example is
built for float). All three count n^3/3 flop and time the factorisation alone.

    bench/cholesky/compare.py                       # n = 8192, conveyor's default block, s and d
    N=4096 BLOCK=256 REPEAT=3 bench/cholesky/compare.py --json-out cholesky_bench.json
    PRECISIONS=s REPEAT=3 bench/cholesky/compare.py # single only, median of 3

Environment: N, BLOCK (default: none given, conveyor chooses and StarPU gets the same), REPEAT
(rounds; best and median reported), PRECISIONS (s,d), BUILD (default build/release),
STARPU_CHOLESKY (path of cholesky_implicit; Debian's starpu-examples puts it under
/usr/lib/<arch>/starpu/examples). The runs alternate (conveyor, OpenBLAS, StarPU per precision,
REPEAT rounds) so that a machine whose load changes during the run hurts all of them alike; the
load average before and after is printed. GFLOP/s: 1e9 flop/s.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_starpu():
    if os.environ.get("STARPU_CHOLESKY"):
        return os.environ["STARPU_CHOLESKY"]
    hits = glob.glob("/usr/lib/*/starpu/examples/cholesky_implicit")
    return hits[0] if hits else None


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    return p.stdout


def conveyor(build, n, block, precision):
    args = [f"{build}/tools/conveyor/conveyor", "cholesky", "--n", str(n), "--precision", precision,
            "--check", "--json"] + (["--block", str(block)] if block else [])
    row = json.loads(run(args))["results"][0]
    return row["gflops"], row["time_s"], row["residual"], row["block"]


def openblas(build, n, precision):
    row = json.loads(run([f"{build}/bench/cholesky_potrf_openblas", str(n), precision]))
    return row["gflops"], row["time_s"], row["residual"]


def starpu(path, n, block):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", STARPU_SILENT="1")
    out = run([path, "-size", str(n), "-nblocks", str(max(1, n // block))], env=env)
    # Its result line follows the header "# size  ms  GFlop/s".
    m = re.search(r"^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s*$", out, re.M)
    if not m:
        sys.exit(f"compare: cannot read StarPU's output: {out!r}")
    return float(m.group(3)), float(m.group(2)) / 1e3, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json-out", help="write the rows as JSON")
    args = ap.parse_args()
    n = int(os.environ.get("N", 8192))
    block = int(os.environ.get("BLOCK", 0))  # 0: conveyor's default
    repeat = int(os.environ.get("REPEAT", 1))
    precisions = os.environ.get("PRECISIONS", "s,d").split(",")
    build = os.environ.get("BUILD", os.path.join(ROOT, "build/release"))
    starpu_path = find_starpu()

    runs = {}  # (peer, precision) -> [(gflops, time_s, residual), ...]
    used_block = {}
    load_before = os.getloadavg()[0]
    for _ in range(repeat):
        for p in precisions:
            c = conveyor(build, n, block, p)
            used_block[p] = c[3]
            runs.setdefault(("conveyor", p), []).append(c[:3])
            runs.setdefault(("openblas", p), []).append(openblas(build, n, p))
            if p == "s" and starpu_path:
                runs.setdefault(("starpu", p), []).append(starpu(starpu_path, n, used_block[p]))
    load_after = os.getloadavg()[0]

    def best(key):
        return max(g for g, *_ in runs[key]) if key in runs else None

    def median(key):
        return statistics.median(g for g, *_ in runs[key]) if key in runs else None

    rows = []
    print(f"Cholesky n = {n}, CPU only, {repeat} rounds (best / median GFLOP/s = n^3/3 / time / 1e9); "
          f"load average {load_before:.2f} before, {load_after:.2f} after")
    print(f"{'precision':<10}{'block':>6}{'conveyor':>16}{'OpenBLAS':>16}{'StarPU':>16}"
          f"{'conv/OpenBLAS':>15}{'conv/StarPU':>13}")
    fmt = lambda b, m: f"{b:.2f} / {m:.2f}" if b else "n/a"
    for p in precisions:
        name = "single" if p == "s" else "double"
        c, o, s = (("conveyor", p), ("openblas", p), ("starpu", p))
        ratio_o = median(c) / median(o)
        ratio_s = median(c) / median(s) if s in runs else None
        print(f"{name:<10}{used_block[p]:>6}{fmt(best(c), median(c)):>16}{fmt(best(o), median(o)):>16}"
              f"{fmt(best(s), median(s)):>16}{ratio_o:>15.2f}"
              f"{(f'{ratio_s:.2f}' if ratio_s else 'n/a'):>13}")
        rows.append({"precision": name, "n": n, "block": used_block[p], "rounds": repeat,
                     "conveyor_gflops": [g for g, *_ in runs[c]],
                     "conveyor_residual": runs[c][-1][2],
                     "openblas_potrf_gflops": [g for g, *_ in runs[o]],
                     "openblas_residual": runs[o][-1][2],
                     "starpu_gflops": [g for g, *_ in runs[s]] if s in runs else None,
                     "ratio_openblas_median": ratio_o, "ratio_starpu_median": ratio_s,
                     "ratio_openblas_best": best(c) / best(o),
                     "load_average": [load_before, load_after]})
    print("ratios: of the medians")
    if not starpu_path:
        print("StarPU: cholesky_implicit not found (scripts/setup-deps.sh --bench installs it)")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"command": "bench_cholesky", "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()
