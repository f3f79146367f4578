"""The argument checks of the package's functions, as strict as the CLI's options: each refusal is a
conveyor.UsageError (a ValueError) with one line naming the function, the argument and the value,
raised before any work starts."""

import numbers

import numpy as np

from ._core import UsageError

CHOLESKY_CODELETS = ("potrf", "trsm", "syrk", "gemm")


def integer(value, what: str, *, minimum: int) -> int:
    """An int (or NumPy integer; not a bool) of at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise UsageError(f"{what} must be an integer >= {minimum} (got {value!r})")
    return int(value)


def block(value, what: str) -> int:
    """A tile size: a positive int, or None for the one `conveyor cholesky` and `conveyor qr`
    choose from n and the workers (0 to the compiled module)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise UsageError(f"{what}: block must be a positive integer, or None to choose it from n "
                         f"and the workers (got {value!r})")
    return int(value)


def cpus(value, what: str) -> int:
    """CPU workers: -1 (one per core), 0 (devices only) or a count."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < -1:
        raise UsageError(f"{what}: cpus must be -1 (one worker per core), 0 (none) or a positive "
                         f"integer (got {value!r})")
    return int(value)


def devices(value, what: str) -> list:
    """Device ids: 'cpu', 'all', 'opencl:0,cuda:0' or a list of ids; whether they exist is the
    runtime's check (it names the devices it has)."""
    if isinstance(value, str):
        return [value]
    try:
        ids = list(value)
    except TypeError:
        ids = None
    if ids is None or not all(isinstance(i, str) for i in ids):
        raise UsageError(f"{what}: devices must be 'cpu', 'all', an id such as 'opencl:0' or a "
                         f"list of ids (got {value!r})")
    return ids


def text(value, what: str, name: str) -> str:
    """A string option whose values the runtime checks (a scheduler's name: the runtime lists
    them in its one-line refusal)."""
    if not isinstance(value, str):
        raise UsageError(f"{what}: {name} must be a string (got {value!r})")
    return value


def offload(value, what: str) -> list:
    """Codelet names of the tile Cholesky placed on devices by the 'offload' scheduler."""
    if value is None:
        return []
    names = value.split(",") if isinstance(value, str) else value
    try:
        names = list(names)
    except TypeError:
        names = [names]
    for name in names:
        if name not in CHOLESKY_CODELETS:
            raise UsageError(f"{what}: offload takes codelet names among "
                             f"{', '.join(CHOLESKY_CODELETS)} (got {name!r})")
    return names


def real_matrix(a, what: str) -> np.ndarray:
    """`a` as a 2-D, non-empty, real ndarray (not copied when it is one): integers and booleans
    are accepted (computed in float64), complex, string and object arrays are not."""
    try:
        array = np.asarray(a)
    except (ValueError, TypeError) as e:  # ragged nested lists and the like
        raise UsageError(f"{what}: expects a 2-D numeric matrix ({e})") from None
    if array.ndim != 2:
        raise UsageError(f"{what}: expects a 2-D matrix, got {array.ndim} dimension(s)")
    if array.dtype.kind == "c":
        raise UsageError(f"{what}: complex matrices are not supported (got dtype {array.dtype}): "
                         "the tile kernels are real; numpy.linalg handles complex ones")
    if array.dtype.kind not in "biuf":
        raise UsageError(f"{what}: expects a real matrix (float32 or float64; integers and "
                         f"booleans are converted to float64), got dtype {array.dtype}")
    if array.size == 0:
        raise UsageError(f"{what}: the matrix is empty ({array.shape[0]} x {array.shape[1]})")
    return array


def square(array: np.ndarray, what: str) -> np.ndarray:
    if array.shape[0] != array.shape[1]:
        raise UsageError(f"{what}: the matrix must be square (got {array.shape[0]} x "
                         f"{array.shape[1]})")
    return array


def finite(array: np.ndarray, what: str) -> None:
    """NaN or infinity anywhere: refused (the kernels would carry it into the result)."""
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise UsageError(f"{what}: the matrix has a non-finite entry ({array[index]} at "
                         f"{list(index)})")


def working_dtype(*arrays: np.ndarray):
    """float32 when every array is float32 (kept, as NumPy keeps it), else float64."""
    return np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
