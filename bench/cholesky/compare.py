#!/usr/bin/env python3
"""CPU-only Cholesky GFLOP/s, side by side in one run: conveyor cholesky (tiles on pinned CPU
workers, one OpenBLAS thread per task), LAPACKE potrf from OpenBLAS with all threads (one call on
the whole matrix), and StarPU's cholesky_implicit example (single precision only: that example is
built for float). All three count n^3/3 flop and time the factorisation alone.

    bench/cholesky/compare.py                       # n = 8192, block 512, single and double
    N=4096 BLOCK=256 REPEAT=3 bench/cholesky/compare.py --json-out cholesky_bench.json

Environment: N, BLOCK, REPEAT (best of), BUILD (default build/release), STARPU_CHOLESKY (path of
cholesky_implicit; Debian's starpu-examples puts it under /usr/lib/<arch>/starpu/examples).
The runs alternate (conveyor, OpenBLAS, StarPU per precision, REPEAT rounds) so that a machine
whose load changes during the run hurts all of them alike. GFLOP/s: 1e9 flop/s.
"""
import argparse
import glob
import json
import os
import re
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
    out = run([f"{build}/tools/conveyor/conveyor", "cholesky", "--n", str(n), "--block", str(block),
               "--precision", precision, "--check", "--json"])
    row = json.loads(out)["results"][0]
    return row["gflops"], row["time_s"], row["residual"]


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
    block = int(os.environ.get("BLOCK", 512))
    repeat = int(os.environ.get("REPEAT", 1))
    build = os.environ.get("BUILD", os.path.join(ROOT, "build/release"))
    starpu_path = find_starpu()

    best = {}
    def keep(key, value):
        if key not in best or value[0] > best[key][0]:
            best[key] = value

    for _ in range(repeat):
        for p in ("s", "d"):
            keep(("conveyor", p), conveyor(build, n, block, p))
            keep(("openblas", p), openblas(build, n, p))
            if p == "s" and starpu_path:
                keep(("starpu", p), starpu(starpu_path, n, block))

    rows = []
    print(f"Cholesky n = {n}, block {block}, CPU only, best of {repeat}; GFLOP/s = n^3/3 / time / 1e9")
    print(f"{'precision':<10}{'conveyor':>10}{'OpenBLAS':>10}{'StarPU':>10}"
          f"{'conv/OpenBLAS':>15}{'conv/StarPU':>13}")
    for p, name in (("s", "single"), ("d", "double")):
        c = best[("conveyor", p)][0]
        o = best[("openblas", p)][0]
        s = best.get(("starpu", p), (None,))[0]
        print(f"{name:<10}{c:>10.2f}{o:>10.2f}{(f'{s:.2f}' if s else 'n/a'):>10}"
              f"{c / o:>15.2f}{(f'{c / s:.2f}' if s else 'n/a'):>13}")
        rows.append({"precision": name, "n": n, "block": block, "conveyor_gflops": c,
                     "conveyor_residual": best[("conveyor", p)][2],
                     "openblas_potrf_gflops": o, "openblas_residual": best[("openblas", p)][2],
                     "starpu_gflops": s,
                     "ratio_openblas": c / o, "ratio_starpu": c / s if s else None})
    if not starpu_path:
        print("StarPU: cholesky_implicit not found (scripts/setup-deps.sh --bench installs it)")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"command": "bench_cholesky", "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()
