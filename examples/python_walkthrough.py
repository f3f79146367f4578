#!/usr/bin/env python3
"""Conveyor from Python in three steps (docs/python.md, "Walkthrough"): a STREAM table turned into a
figure, the Cholesky factor of a NumPy matrix, and a graph that mixes a Python task with the
built-in tile codelets on a matrix's tiles.

    PYTHONPATH=build/release/python:python python3 examples/python_walkthrough.py [OUTPUT_DIR]

Writes stream.png into OUTPUT_DIR (default: the current directory) when matplotlib is installed.
"""
import sys
from pathlib import Path

import numpy as np

import conveyor

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")

# 1. STREAM on the CPUs: records, a data frame, a figure (small arrays: an example, not a measurement).
result = conveyor.stream(threads=[1, 2], size="8MiB", allow_small=True, repeats=5)
for r in result.records:
    print(f"{r['kernel']:>6} {r['threads']} threads: {r['best_gbs']:6.1f} GB/s")
try:
    print("figure:", result.plot(out / "stream.png"))
except ImportError as e:  # matplotlib is optional
    print("no figure:", e)

# 2. The Cholesky factor of a NumPy matrix, as numpy.linalg.cholesky returns it.
n = 512
m = np.random.default_rng(0).standard_normal((n, n))
a = m @ m.T + n * np.eye(n)
L = conveyor.linalg.cholesky(a)
print("cholesky residual:", np.linalg.norm(L @ L.T - a) / np.linalg.norm(a))

# 3. One graph: a Python task scales a block row, then the built-in gemm updates a tile with it
#    (C -= A B^T, on whichever worker the scheduler picks), then a Python task reads the result.
f = np.asfortranarray(a)  # the built-in codelets take column-major (Fortran-ordered) tiles
b = 128
expected = f[2 * b:3 * b, 1 * b:2 * b] - 0.5 * f[2 * b:3 * b, 0:b] @ f[1 * b:2 * b, 0:b].T
with conveyor.Runtime(cpus=2, pin=False) as rt:
    A, B, C = (rt.register(f[i * b:(i + 1) * b, j * b:(j + 1) * b]) for i, j in ((2, 0), (1, 0), (2, 1)))
    rt.submit(lambda x: x.__imul__(0.5), [(A, "rw")])  # a Python callable on a CPU worker
    rt.submit("gemm", [A, B, C])                       # modes implied: A, B read; C read-write
    norms = []
    rt.submit(lambda c: norms.append(np.linalg.norm(c)), [(C, "r")])
    rt.wait()
print("gemm tile matches NumPy:", np.allclose(f[2 * b:3 * b, 1 * b:2 * b], expected),
      f"(norm seen by the last task: {norms[0]:.1f})")
