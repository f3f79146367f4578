"""Linear algebra on Conveyor's runtime: the tile algorithms of its apps, with their built-in
codelets (OpenBLAS/LAPACKE on CPU workers, cuBLAS/cuSOLVER on CUDA devices, an OpenCL gemm), as
one call on a NumPy matrix (docs/python.md).

    L = conveyor.linalg.cholesky(A)                      # as numpy.linalg.cholesky(A)
    L = conveyor.linalg.cholesky(A, devices="all", offload=["gemm"])
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence, Union

from . import _core


def cholesky(a, *, block: int = 0, devices: Union[str, Sequence[str]] = "cpu", cpus: int = -1,
             scheduler: str = "auto", offload: Optional[Iterable[str]] = None):
    """The lower Cholesky factor L of a symmetric positive definite matrix (a = L L^T), as
    numpy.linalg.cholesky returns it: a new array, zeros above the diagonal; float32 stays float32,
    anything else is computed in float64. Only the lower triangle of `a` is read.

    block: tile size (0: the apps' default for n and the workers); devices: 'cpu', 'all' or ids
    such as 'cuda:0'; cpus: CPU workers (-1: one per core); scheduler and offload (codelet names:
    potrf, trsm, syrk, gemm) as for conveyor::RuntimeOptions. Raises conveyor.Error naming the
    failed task when the matrix is not positive definite, conveyor.UsageError for bad arguments.
    """
    import numpy as np

    a = np.asarray(a)
    if a.ndim != 2:
        raise _core.UsageError(f"cholesky: expects a 2-D matrix, got {a.ndim} dimension(s)")
    if a.shape[0] != a.shape[1]:
        raise _core.UsageError(f"cholesky: the matrix must be square (got {a.shape[0]} x {a.shape[1]})")
    dtype = np.float32 if a.dtype == np.float32 else np.float64
    # The runtime factorises column-major tiles in place: a Fortran-ordered copy, which is also
    # the result (the caller's array is left as it was, as NumPy does). Of a C-ordered matrix only
    # the lower triangle is copied, by tiles (NumPy's strided copy is several times slower).
    lower_only = a.dtype == dtype and a.flags.c_contiguous and not a.flags.f_contiguous
    if lower_only:
        work = np.zeros(a.shape, dtype=dtype, order="F")  # fresh pages: zero at no extra cost
        _core.copy_lower_to_fortran(a, work)
    else:
        work = np.array(a, dtype=dtype, order="F", copy=True)
    _core.cholesky_in_place(work, block, devices, cpus, scheduler, list(offload or []),
                            zero_upper=not lower_only)
    return work
