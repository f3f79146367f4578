"""Linear algebra on Conveyor's runtime: the tile algorithms of its apps, with their built-in
codelets (OpenBLAS/LAPACKE on CPU workers, cuBLAS/cuSOLVER on CUDA devices, an OpenCL gemm; the
QR's own OpenCL and CUDA kernels), as one call on a matrix, with NumPy's conventions
(docs/python.md, "NumPy conventions").

Matrices may come from any DLPack producer (NumPy, PyTorch, CuPy, ...), and results come back as
the same kind of array (docs/python.md, "Arrays from other libraries"): host memory is read in
place (the only copy is the result, which is new as NumPy's is). A CUDA array of PyTorch or CuPy
is factorised on its GPU, where it lives, when the runtime has that GPU (devices="cuda:K" for an
array on GPU K, or "all"): its working copy is made there by its own library and each tile is data
whose home is the GPU, so tasks on that GPU copy nothing in. With devices="cpu" (the default) it
is copied to the host, factorised there, and the result copied back to its GPU.

    L = conveyor.linalg.cholesky(A)                      # as numpy.linalg.cholesky(A)
    L = conveyor.linalg.cholesky(A, devices="all", offload=["gemm"])
    Q, R = conveyor.linalg.qr(A)                         # as numpy.linalg.qr(A), m >= n
    x = conveyor.linalg.solve(A, b, assume_a="pos")      # as scipy.linalg.solve(..., assume_a="pos")

A matrix that cannot be factorised raises conveyor.linalg.LinAlgError, which is both a
numpy.linalg.LinAlgError and a conveyor.Error; bad arguments raise conveyor.UsageError (a
ValueError) in one line, before anything runs.
"""

import numpy as _np

from . import _arrays, _checks, _core

__all__ = ["LinAlgError", "cholesky", "qr", "solve"]


class LinAlgError(_np.linalg.LinAlgError, _core.Error):
    """A factorisation failed because of the matrix (one that is not positive definite, for
    cholesky and solve). Caught by ``except numpy.linalg.LinAlgError`` as NumPy's own, and by
    ``except conveyor.Error`` as Conveyor's other failures.

    Attributes: ``minor``, the order k of the first leading minor (the k x k upper-left block)
    found not positive definite, or None where the failure did not say (a potrf on a device);
    ``details``, the runtime's message (the failed task, its worker, the kernel's own words).
    """

    def __init__(self, message: str, minor=None, details: str = ""):
        super().__init__(message)
        self.minor = minor
        self.details = details


def _runtime_arguments(what, devices, cpus, scheduler):
    return (_checks.devices(devices, what), _checks.cpus(cpus, what),
            _checks.text(scheduler, what, "scheduler"))


def _gpu_stand_in(ops, array, what):
    """A NumPy stand-in with the GPU array's shape and dtype (no memory behind it: nothing is read
    from the GPU), through the host path's checks: 2-D, non-empty, real."""
    stand_in = _np.lib.stride_tricks.as_strided(_np.zeros(1, dtype=ops.numpy_dtype(array)),
                                                shape=tuple(array.shape),
                                                strides=(0,) * array.ndim)
    return _checks.real_matrix(stand_in, what)


def _not_positive_definite(n, details):
    return LinAlgError(f"cholesky: the {n} x {n} matrix is not positive definite (on a GPU the "
                       "leading minor that failed is not known)", None, details)


def _cholesky_on_gpu(a, home, block, devices, cpus, scheduler, offload):
    """cholesky() of a CuPy/PyTorch array on the GPU `home`, which the runtime has: L on it."""
    what = "cholesky"
    ops = _arrays.GpuOps(a)
    dtype = _checks.working_dtype(_checks.square(_gpu_stand_in(ops, a, what), what))
    n = a.shape[0]
    work = ops.fortran(ops.lower(a), dtype)  # zeros above the diagonal, as NumPy's L
    if not ops.all_finite(work):
        raise _core.UsageError(f"cholesky: the matrix has a non-finite entry in its lower "
                               f"triangle (checked on {home})")
    minor, details = _core.cholesky_on_device(ops.address(work), n, _np.dtype(dtype).name, home,
                                              block, devices, cpus, scheduler, offload)
    if minor != 0:
        raise _not_positive_definite(n, details)
    if not ops.positive_finite_diagonal(work):  # a potrf on a device reports no failure
        raise _not_positive_definite(n, "L's diagonal has an entry that is not positive and "
                                     "finite after the factorisation")
    return work


def cholesky(a, *, block=None, devices="cpu", cpus=-1, scheduler="auto", offload=None):
    """The lower Cholesky factor L of a symmetric positive definite matrix (a = L L^T), by the tile
    Cholesky of `conveyor cholesky` on a runtime of its own, as numpy.linalg.cholesky returns it: a
    new Fortran-ordered array with zeros above the diagonal; float32 stays float32, other real
    dtypes are computed in float64. Only the lower triangle of `a` is read.

    Arguments (keywords, as the CLI's options):
      block      tile size, a positive int; None (default) chooses it from n and the workers.
      devices    'cpu' (CPU workers only, default), 'all', an id such as 'cuda:0' or a list of ids.
      cpus       CPU workers: -1 (default) one per core, 0 none (every task on the devices).
      scheduler  'auto' (default), 'model', 'model-ready', 'eager', 'round-robin', 'offload',
                 'locality'.
      offload    codelets the 'offload' scheduler puts on the devices: names among potrf, trsm,
                 syrk, gemm (a list or comma-separated text).

    a: a NumPy array, a list, or any DLPack producer; L is the same kind of array (a PyTorch
    tensor for one, on its device; docs/python.md, "Arrays from other libraries"). A CuPy array or
    PyTorch tensor on CUDA GPU K is factorised there, where it lives, when `devices` names cuda:K
    or is 'all' (its working copy made on the GPU by its library; tasks on other workers get
    copies); with devices='cpu' it is copied to the host and L copied back to GPU K.

    Raises conveyor.linalg.LinAlgError (a numpy.linalg.LinAlgError) when the matrix is not positive
    definite, naming the first leading minor found not to be (not known for a matrix factorised on
    its GPU: minor is None there); conveyor.UsageError (a ValueError)
    for a matrix that is not 2-D, square, real and finite, or a bad argument; TypeError for an
    array on a device other than the host or CUDA.
    """
    what = "cholesky"
    original = a
    block = _checks.block(block, what)
    devices, cpus, scheduler = _runtime_arguments(what, devices, cpus, scheduler)
    offload = _checks.offload(offload, what)
    home = _arrays.gpu_home(a, devices)
    if home is not None:
        return _cholesky_on_gpu(a, home, block, devices, cpus, scheduler, offload)
    a = _checks.square(_checks.real_matrix(_arrays.host_array(a, what), what), what)
    dtype = _checks.working_dtype(a)
    n = a.shape[0]
    # The runtime factorises column-major tiles in place: a Fortran-ordered copy, which is also
    # the result (the caller's array is left as it was, as NumPy does). Of a C-ordered matrix only
    # the lower triangle is copied, by tiles (NumPy's strided copy is several times slower).
    lower_only = a.dtype == dtype and a.flags.c_contiguous and not a.flags.f_contiguous
    if lower_only:
        work = _np.zeros(a.shape, dtype=dtype, order="F")  # fresh pages: zero at no extra cost
        _core.copy_lower_to_fortran(a, work)
    else:
        work = _np.array(a, dtype=dtype, order="F", copy=True)
    # The compiled half also refuses a non-finite lower triangle (the upper one is not read).
    minor, details = _core.cholesky_in_place(work, block, devices, cpus, scheduler, offload,
                                             zero_upper=not lower_only)
    if minor != 0:
        where = (f"its leading minor of order {minor} is not" if minor > 0 else
                 "the position was not reported")
        raise LinAlgError(f"cholesky: the {n} x {n} matrix is not positive definite ({where})",
                          minor if minor > 0 else None, details)
    return _arrays.like(work, original)


_QR_MODES = ("reduced", "complete", "r")


def qr(a, mode="reduced", *, block=None, ib=None, devices="cpu", cpus=-1, scheduler="auto"):
    """The QR factorisation a = Q R of an m x n matrix with m >= n by the tile Householder QR of
    `conveyor qr` (apps/qr: LAPACKE's geqrt/gemqrt/tpqrt/tpmqrt on CPU workers, its own OpenCL
    and CUDA kernels on devices) on a runtime of its own, as numpy.linalg.qr returns it:

      mode='reduced' (default)  (Q, R), Q m x n with orthonormal columns, R n x n upper triangular
      mode='complete'           (Q, R), Q m x m orthogonal, R m x n (zeros below row n)
      mode='r'                  R alone, n x n (Q is not formed)

    New Fortran-ordered arrays; float32 stays float32, other real dtypes are computed in float64.
    The signs of R's diagonal (and of Q's columns with them) may differ from NumPy's: both are
    QR factorisations. A matrix with m > n is factorised in its own tiles (2 m n^2 flops, as
    LAPACK's geqrf; a tall, thin one as one domain of tile rows per CPU worker, merged by a tree),
    and Q formed with only the columns asked for.

    Arguments (keywords but mode):
      block      tile size, a positive int; None (default) chooses it as `conveyor qr` does.
      ib         inner blocking, a positive int (taken as block when larger); None (default)
                 chooses it from the tile as `conveyor qr` does.
      devices    'cpu' (default), 'all', an id such as 'opencl:0' or a list of ids.
      cpus       CPU workers: -1 (default) one per core, 0 none (every task on the devices).
      scheduler  'auto' (default), 'model', 'model-ready', 'eager', 'round-robin', 'offload',
                 'locality'.
    Q is formed from the stored reflectors by tasks on the workers (on the host when there are no
    CPU workers, or fewer chains of tasks than CPU workers).

    a: a NumPy array, a list, or any DLPack producer; Q and R are the same kind of array
    (docs/python.md, "Arrays from other libraries"). A CuPy array or PyTorch tensor on CUDA GPU K
    is factorised there, where it lives, when `devices` names cuda:K or is 'all': R and Q are
    formed on the GPU (only the small T factors cross from the host). With devices='cpu' the
    matrix is copied to the host and Q and R copied back to GPU K.

    Raises conveyor.UsageError (a ValueError) for a matrix that is not 2-D, real and finite, with
    fewer rows than columns, or a bad argument; TypeError for an array on a device other than the
    host or CUDA.
    """
    what = "qr"
    if mode not in _QR_MODES:
        raise _core.UsageError(f"qr: mode must be one of {', '.join(_QR_MODES)} (got {mode!r}); "
                               "'raw' is not supported")
    original = a
    block = _checks.block(block, what)
    ib = 0 if ib is None else _checks.integer(ib, "qr: ib", minimum=1)
    devices, cpus, scheduler = _runtime_arguments(what, devices, cpus, scheduler)
    home = _arrays.gpu_home(a, devices)
    if home is not None:
        return _qr_on_gpu(a, home, mode, block, ib, devices, cpus, scheduler)
    a = _checks.real_matrix(_arrays.host_array(a, what), what)
    m, n = a.shape
    if m < n:
        raise _core.UsageError(f"qr: the matrix must have at least as many rows as columns (got "
                               f"{m} x {n}); the QR of its transpose is an LQ of it")
    _checks.finite(a, what)
    dtype = _checks.working_dtype(a)
    # The runtime factorises column-major tiles in place: a Fortran-ordered copy becomes R (the
    # caller's array is left as it was, as NumPy does): m x mt tiles, R n x n on top.
    work = _np.array(a, dtype=dtype, order="F", copy=True)
    q = _core.qr_in_place(work, block, ib, devices, cpus, scheduler,
                          q_columns=_q_columns(mode, m, n))
    r = work if m == n or mode == "complete" else _np.array(work[:n], order="F")
    r = _arrays.like(r, original)
    return r if mode == "r" else (_arrays.like(q, original), r)


def _q_columns(mode, m, n):
    """The columns of Q that `mode` returns (0: none)."""
    return {"r": 0, "reduced": n, "complete": m}[mode]


def _qr_on_gpu(a, home, mode, block, ib, devices, cpus, scheduler):
    """qr() of a CuPy/PyTorch array on the GPU `home`, which the runtime has."""
    what = "qr"
    ops = _arrays.GpuOps(a)
    stand_in = _gpu_stand_in(ops, a, what)
    m, n = a.shape
    if m < n:
        raise _core.UsageError(f"qr: the matrix must have at least as many rows as columns (got "
                               f"{m} x {n}); the QR of its transpose is an LQ of it")
    if not ops.all_finite(a):
        raise _core.UsageError(f"qr: the matrix has a non-finite entry (checked on {home})")
    dtype = _checks.working_dtype(stand_in)
    work = ops.fortran(a, dtype)
    # Q is formed on the GPU from the identity's first columns, beside the reflectors.
    q_columns = _q_columns(mode, m, n)
    q = ops.identity_fortran(m, q_columns, dtype) if q_columns else None
    _core.qr_on_device(ops.address(work), m, n, _np.dtype(dtype).name, home, block, ib, devices,
                       cpus, scheduler, q_address=ops.address(q) if q_columns else 0,
                       q_columns=q_columns)
    r = ops.upper(work)  # the reflectors below the diagonal become zeros
    if m != n and mode != "complete":
        r = ops.fortran(r[:n], dtype)
    return r if mode == "r" else (q, r)


_SOLVE_BLOCK = 256  # rows per step of the triangular solves


def _solve_lower(l, x):
    """x <- l^-1 x in place, l lower triangular (forward substitution by blocks of rows)."""
    n = l.shape[0]
    for s in range(0, n, _SOLVE_BLOCK):
        e = min(s + _SOLVE_BLOCK, n)
        x[s:e] = _np.linalg.solve(l[s:e, s:e], x[s:e])
        x[e:] -= l[e:, s:e] @ x[s:e]


def _solve_lower_transposed(l, x):
    """x <- l^-T x in place, l lower triangular (back substitution by blocks of rows)."""
    n = l.shape[0]
    for e in range(n, 0, -_SOLVE_BLOCK):
        s = max(e - _SOLVE_BLOCK, 0)
        x[s:e] = _np.linalg.solve(l[s:e, s:e].T, x[s:e])
        x[:s] -= l[s:e, :s].T @ x[s:e]


def solve(a, b, *, assume_a="pos", block=None, devices="cpu", cpus=-1, scheduler="auto",
          offload=None):
    """The solution x of a x = b for a symmetric positive definite `a`, as
    scipy.linalg.solve(a, b, assume_a="pos") (scipy.linalg.cho_solve after cho_factor): the
    Cholesky factor L of `a` by conveyor.linalg.cholesky (same keywords: block, devices, cpus,
    scheduler, offload; on a runtime of its own), then L y = b and L^T x = y by blocks of 256 rows
    (each diagonal block by numpy.linalg.solve, the rest by matrix products).

    b: a vector of n entries or an n x k matrix; x has b's shape. float32 when a and b both are,
    else float64. Only the lower triangle of `a` is read. assume_a: 'pos' only (other structures
    are numpy.linalg.solve's). a and b: NumPy arrays, lists or any DLPack producers; x is the
    same kind of array as b (docs/python.md, "Arrays from other libraries"). When a and b are
    both CuPy arrays or both PyTorch tensors on CUDA GPU K and `devices` names cuda:K or is 'all',
    everything runs on GPU K: L as cholesky() makes it there, the triangular solves by the
    library's own (cupyx.scipy.linalg.solve_triangular, torch.linalg.solve_triangular). Otherwise
    they are copied to the host, and x copied back to b's device.

    Raises conveyor.linalg.LinAlgError (a numpy.linalg.LinAlgError) when `a` is not positive
    definite; conveyor.UsageError (a ValueError) for arrays of the wrong shape, dtype or with
    non-finite entries, or a bad argument; TypeError for an array on a device other than the host
    or CUDA.
    """
    what = "solve"
    if assume_a not in ("pos", "positive definite"):
        raise _core.UsageError(f"solve: only assume_a='pos' (symmetric positive definite) is "
                               f"supported (got {assume_a!r}); numpy.linalg.solve solves general "
                               "systems")
    home = _arrays.gpu_home(a, _checks.devices(devices, what))
    if home is not None and _arrays.gpu_home(b, [home]) == home and type(a) is type(b):
        return _solve_on_gpu(a, b, block=block, devices=devices, cpus=cpus,
                             scheduler=scheduler, offload=offload)
    a = _checks.square(_checks.real_matrix(_arrays.host_array(a, what), what), what)
    original_b = b
    b = _arrays.host_array(b, "solve: b")  # TypeError for an unsupported device, as for `a`
    try:
        b = _np.asarray(b)
    except (ValueError, TypeError) as e:
        raise _core.UsageError(f"solve: b must be a numeric vector or matrix ({e})") from None
    if b.dtype.kind not in "biuf" or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise _core.UsageError(f"solve: b must be a real vector of {a.shape[0]} entries or a real "
                               f"matrix of {a.shape[0]} rows (got shape {b.shape}, dtype "
                               f"{b.dtype})")
    _checks.finite(b, "solve: b")
    dtype = _checks.working_dtype(a, b)
    if dtype == _np.float64 and a.dtype == _np.float32:
        a = a.astype(_np.float64)  # a float64 b: the whole solve in float64
    l = cholesky(a, block=block, devices=devices, cpus=cpus, scheduler=scheduler,
                 offload=offload)
    x = _np.array(b, dtype=dtype, copy=True)
    columns = x.reshape(a.shape[0], -1)  # a view: the solves write into x
    _solve_lower(l, columns)
    _solve_lower_transposed(l, columns)
    return _arrays.like(x, original_b)


def _solve_on_gpu(a, b, **keywords):
    """solve() of a and b, arrays of one library on one GPU that the runtime has."""
    what = "solve"
    ops = _arrays.GpuOps(a)
    a_stand_in = _checks.square(_gpu_stand_in(ops, a, what), what)
    b_dtype = ops.numpy_dtype(b)
    n = a.shape[0]
    if b_dtype.kind not in "biuf" or b.ndim not in (1, 2) or b.shape[0] != n:
        raise _core.UsageError(f"solve: b must be a real vector of {n} entries or a real matrix "
                               f"of {n} rows (got shape {tuple(b.shape)}, dtype {b_dtype})")
    if not ops.all_finite(b):
        raise _core.UsageError("solve: b: the matrix has a non-finite entry (checked on its GPU)")
    dtype = _checks.working_dtype(a_stand_in, _np.empty(0, dtype=b_dtype))
    if a_stand_in.dtype != dtype:
        a = ops.fortran(a, dtype)  # a float64 b: the whole solve in float64
    l = cholesky(a, **keywords)
    return ops.cho_solve(l, ops.fortran(b, dtype))
