#!/usr/bin/env python3
"""conveyor.linalg.qr against numpy.linalg.qr on the same matrices, in one run: square, tall and
tall-skinny, `(Q, R)` (mode "reduced") and R alone (mode "r"), float64, default tiles, fastest of
REPEAT each, the two interleaved so that both see the same machine state. Prints one row per shape
and mode with both times and NumPy's time over Conveyor's (above 1: Conveyor is faster).

Start Python with OPENBLAS_CORETYPE set where `import conveyor` warns that OpenBLAS runs its
generic kernels (docs/python.md): NumPy brings an OpenBLAS of its own, which may know the CPU.

    PYTHONPATH=build/release/python:python python3 bench/python_qr.py [--shapes 2048x2048,4000x1000]
        [--repeat R] [--json FILE]
"""
import argparse
import json
import platform
import time

import numpy as np

import conveyor
import conveyor.linalg

DEFAULT_SHAPES = "2048x2048,4000x1000,20000x256,100000x64"


def shapes(text):
    try:
        found = [tuple(int(v) for v in s.lower().split("x")) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"shapes are MxN,MxN,... (got {text!r})")
    if any(len(s) != 2 or s[0] < s[1] or s[1] < 1 for s in found):
        raise argparse.ArgumentTypeError(f"each shape is MxN with M >= N >= 1 (got {text!r})")
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", type=shapes, default=shapes(DEFAULT_SHAPES),
                   help=f"matrices as MxN,... (default {DEFAULT_SHAPES})")
    p.add_argument("--repeat", type=int, default=3, help="timed calls of each (default 3)")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args()
    if args.repeat < 1:
        p.error("--repeat must be positive")

    rows = []
    print(f"{'m x n':>14} {'mode':>8} {'conveyor s':>11} {'numpy s':>9} {'numpy/conveyor':>15}")
    for m, n in args.shapes:
        a = np.random.default_rng(1).standard_normal((m, n))
        for mode in ("reduced", "r"):
            best = {"conveyor": float("inf"), "numpy": float("inf")}
            for _ in range(args.repeat):
                for name, qr in (("conveyor", conveyor.linalg.qr), ("numpy", np.linalg.qr)):
                    start = time.perf_counter()
                    qr(a, mode)
                    best[name] = min(best[name], time.perf_counter() - start)
            ratio = best["numpy"] / best["conveyor"]
            rows.append({"m": m, "n": n, "mode": mode, "conveyor_s": best["conveyor"],
                         "numpy_s": best["numpy"], "ratio": ratio})
            print(f"{f'{m} x {n}':>14} {mode:>8} {best['conveyor']:11.3f} {best['numpy']:9.3f} "
                  f"{ratio:14.2f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": platform.node(), "repeat": args.repeat, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
