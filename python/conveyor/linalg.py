"""Linear algebra on Conveyor's runtime: the tile algorithms of its apps, with their built-in
codelets (OpenBLAS/LAPACKE on CPU workers, cuBLAS/cuSOLVER on CUDA devices, an OpenCL gemm), as
one call on a NumPy matrix (docs/python.md).

    L = conveyor.linalg.cholesky(A)                      # as numpy.linalg.cholesky(A)
    L = conveyor.linalg.cholesky(A, devices="all", offload=["gemm"])
    Q, R = conveyor.linalg.qr(A)                         # as numpy.linalg.qr(A), A square
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


_QR_MODES = ("reduced", "complete", "r")


def qr(a, *, block: int = 0, ib: int = 32, devices: Union[str, Sequence[str]] = "cpu",
       cpus: int = -1, scheduler: str = "auto", mode: str = "reduced"):
    """The QR factorisation a = Q R of a square matrix by the tile Householder QR of `conveyor qr`
    (apps/qr: LAPACKE's geqrt/gemqrt/tpqrt/tpmqrt on CPU workers, its own OpenCL and CUDA kernels
    on devices), as numpy.linalg.qr returns it: (Q, R), new Fortran-ordered arrays, Q orthogonal
    and R upper triangular; float32 stays float32, anything else is computed in float64. The signs
    of R's diagonal (and of Q's columns with them) may differ from NumPy's: both are valid QRs.

    Only square matrices (n x n) are supported; for them mode 'reduced' (default) and 'complete'
    are the same, and 'r' returns R alone (Q is then not formed). block: tile size (0: chosen
    from n and the workers, as `conveyor qr` does); ib: inner blocking (taken as block when
    larger); devices: 'cpu', 'all' or ids such as 'opencl:0'; cpus: CPU workers (-1: one per
    core); scheduler as for conveyor::RuntimeOptions. Q is rebuilt on the host from the stored
    reflectors with the CPU kernels. Raises conveyor.UsageError (a ValueError) for bad arguments.
    """
    import numpy as np

    if mode not in _QR_MODES:
        raise _core.UsageError(f"qr: mode must be one of {', '.join(_QR_MODES)} (got {mode!r}); "
                               "'raw' is not supported")
    try:
        a = np.asarray(a)
    except Exception as e:  # ragged nested lists and the like
        raise _core.UsageError(f"qr: expects a 2-D numeric matrix ({e})") from None
    if a.ndim != 2:
        raise _core.UsageError(f"qr: expects a 2-D matrix, got {a.ndim} dimension(s)")
    if a.shape[0] != a.shape[1]:
        raise _core.UsageError(f"qr: only square matrices are supported (got {a.shape[0]} x "
                               f"{a.shape[1]})")
    if a.shape[0] == 0:
        raise _core.UsageError("qr: the matrix is empty (0 x 0)")
    if a.dtype.kind not in "biuf":
        raise _core.UsageError(f"qr: expects a real matrix (float32 or float64; integers and "
                               f"booleans are converted to float64), got dtype {a.dtype}")
    if not isinstance(block, (int, np.integer)) or isinstance(block, bool) or block < 0:
        raise _core.UsageError(f"qr: block must be 0 (chosen) or a positive integer (got {block!r})")
    if not isinstance(ib, (int, np.integer)) or isinstance(ib, bool) or ib <= 0:
        raise _core.UsageError(f"qr: ib must be a positive integer (got {ib!r})")
    dtype = np.float32 if a.dtype == np.float32 else np.float64
    # The runtime factorises column-major tiles in place: a Fortran-ordered copy becomes R (the
    # caller's array is left as it was, as NumPy does).
    work = np.array(a, dtype=dtype, order="F", copy=True)
    q = _core.qr_in_place(work, int(block), int(ib), devices, cpus, scheduler,
                          want_q=mode != "r")
    return work if mode == "r" else (q, work)
