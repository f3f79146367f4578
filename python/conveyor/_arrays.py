"""Arrays from any DLPack producer (NumPy, PyTorch, CuPy, ...) in, the same kind of array out.

Host arrays are read through DLPack in place (numpy.from_dlpack: a view, no copy).
Runtime.register takes an array on a CUDA device in place too, as data whose home is that device
(require_registrable). conveyor.linalg factorises a CuPy or PyTorch array on a CUDA device where it
lives when the runtime has that GPU (gpu_home): the working copy is made on the GPU with the
array's own library (GpuOps, the only place that names those libraries' operations) and its
address handed to the compiled half, whose tiles are then strided device homes. Otherwise a CUDA
array is copied to the host explicitly (PyTorch's .cpu(), CuPy's .get()), the runtime copies tiles
to the devices it runs on itself, and results go back with the input's library onto its device.
"""

import sys

import numpy as np

# DLPack's device types (dlpack.h, DLDeviceType).
_CPU, _CUDA = 1, 2
_DEVICE_NAMES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal",
                 9: "vpi", 10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed",
                 14: "oneapi", 15: "webgpu", 16: "hexagon", 17: "maia"}


def _device(array):
    """(device type, id) of a DLPack producer; (_CPU, 0) for anything else (lists, buffers)."""
    if isinstance(array, np.ndarray) or not hasattr(array, "__dlpack_device__"):
        return _CPU, 0
    device_type, device_id = array.__dlpack_device__()
    return int(device_type), int(device_id)


def _describe(device):
    return f"{_DEVICE_NAMES.get(device[0], f'DLPack device type {device[0]}')}:{device[1]}"


def _library(array):
    """The module of the array's library (torch, cupy, ...), already imported since the array
    exists."""
    return sys.modules.get(type(array).__module__.partition(".")[0])


def require_registrable(array, workers, what):
    """TypeError unless the runtime whose workers are `workers` (Runtime.workers()) can register
    `array` in place: host memory, or memory of one of its CUDA devices ("cuda:k worker")."""
    device = _device(array)
    if device[0] == _CPU:
        return
    if device[0] == _CUDA:
        name = f"cuda:{device[1]}"
        if f"{name} worker" in workers:
            return
        devices = [w[:-len(" worker")] for w in workers if not w.startswith("cpu worker")]
        raise TypeError(f"{what}: the array is on {name}, which this runtime does not have (its "
                        f"devices: {', '.join(devices) or 'none'}); make the runtime with "
                        f"devices='{name}' to use it in place, or copy it to the host")
    raise TypeError(f"{what}: the array is on {_describe(device)}; the runtime registers host "
                    "memory and CUDA device memory only (tasks write into it in place): copy it "
                    "to the host first")


def host_array(array, what):
    """`array` as NumPy: a DLPack producer's host memory without a copy (read-only or strided
    views included: the callers' own rules decide whether to copy); a CUDA array of PyTorch or
    CuPy copied to the host; anything else (lists, NumPy arrays) as it is. TypeError for another
    device or an array DLPack cannot hand over (an unsupported dtype such as bfloat16)."""
    if isinstance(array, np.ndarray) or not hasattr(array, "__dlpack__"):
        return array
    device = _device(array)
    kind = type(array).__module__.partition(".")[0] + "." + type(array).__name__
    try:
        if device[0] == _CPU:
            return np.from_dlpack(array)
        if device[0] == _CUDA and kind.startswith("torch."):
            return array.detach().cpu().numpy()
        if device[0] == _CUDA and kind.startswith("cupy."):
            return array.get()
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise TypeError(f"{what}: cannot read the {kind} array through DLPack ({e})") from None
    raise TypeError(f"{what}: a {kind} array on {_describe(device)} is not supported: host "
                    "arrays are read in place, CUDA arrays of PyTorch and CuPy copied to the host; "
                    "copy it to the host first")


def like(result, original):
    """`result` (a NumPy array) as the kind of array `original` was: NumPy for NumPy (and lists);
    a PyTorch tensor or CuPy array on the original's device for those; for another DLPack
    producer in host memory, its library's from_dlpack when it has one, else NumPy."""
    if isinstance(original, np.ndarray) or not hasattr(original, "__dlpack__"):
        return result
    library = _library(original)
    name = getattr(library, "__name__", "")
    device_type, device_id = _device(original)
    if name == "torch":
        tensor = library.from_dlpack(result)  # no copy
        return tensor.to(original.device) if device_type != _CPU else tensor
    if name == "cupy":
        with library.cuda.Device(device_id):
            return library.asarray(result)  # to the original's GPU
    from_dlpack = getattr(library, "from_dlpack", None)
    if device_type == _CPU and callable(from_dlpack):
        return from_dlpack(result)
    return result


def gpu_home(array, devices):
    """'cuda:K' when `array` is a CuPy array or PyTorch tensor on CUDA device K and `devices` (the
    checked ids of a conveyor.linalg call) names cuda:K or 'all': the factorisation then runs on
    the array where it lives. None otherwise (the host path: devices='cpu', the default, keeps a
    CUDA array's factorisation on the host)."""
    device = _device(array)
    if device[0] != _CUDA or _library_name(array) not in ("cupy", "torch"):
        return None
    name = f"cuda:{device[1]}"
    return name if name in devices or "all" in devices else None


def _library_name(array):
    return type(array).__module__.partition(".")[0]


class GpuOps:
    """The operations conveyor.linalg needs on a CuPy array or PyTorch tensor that stays on its
    GPU, done by its own library on that GPU (nothing is read from the host): checks, the
    Fortran-ordered working copy, its address, triangles, diagonals, triangular solves."""

    def __init__(self, array):
        self.name = _library_name(array)
        self.lib = _library(array)
        self.device_id = _device(array)[1]
        self.torch = self.name == "torch"

    def numpy_dtype(self, array):
        """The array's dtype as NumPy names it; TypeError for one NumPy has not (bfloat16)."""
        text = str(array.dtype)
        try:
            return np.dtype(text.removeprefix("torch.") if self.torch else text)
        except TypeError:
            raise TypeError(f"a {self.name} array of dtype {text} is not supported") from None

    def _on_device(self):
        return self.lib.cuda.device(self.device_id) if self.torch else \
            self.lib.cuda.Device(self.device_id)

    def _dtype(self, dtype):
        return getattr(self.lib, np.dtype(dtype).name)

    def fortran(self, array, dtype):
        """A new Fortran-ordered copy of `array` (a vector or a matrix) in `dtype` on its GPU."""
        with self._on_device():
            if self.torch:
                return self._empty_fortran(array.shape, dtype).copy_(array)
            return self.lib.array(array, dtype=dtype, order="F", copy=True)

    def _empty_fortran(self, shape, dtype):
        reverse = tuple(range(len(shape)))[::-1]
        return self.lib.empty(tuple(shape)[::-1], dtype=self._dtype(dtype),
                              device=f"cuda:{self.device_id}").permute(*reverse)

    def address(self, array):
        return int(array.data_ptr() if self.torch else array.data.ptr)

    def all_finite(self, array):
        with self._on_device():
            return bool(self.lib.isfinite(array).all())

    def lower(self, array):
        """A copy with zeros above the diagonal."""
        with self._on_device():
            return self.lib.tril(array)

    def upper(self, array):
        """A copy with zeros below the diagonal."""
        with self._on_device():
            return self.lib.triu(array)

    def positive_finite_diagonal(self, array):
        with self._on_device():
            d = self.lib.diagonal(array)
            return bool(((d > 0) & self.lib.isfinite(d)).all())

    def identity_fortran(self, rows, columns, dtype):
        """The first `columns` columns of the rows x rows identity, Fortran-ordered, in `dtype` on
        the GPU."""
        with self._on_device():
            if self.torch:
                eye = self.lib.eye(rows, columns, dtype=self._dtype(dtype),
                                   device=f"cuda:{self.device_id}")
                return self._empty_fortran((rows, columns), dtype).copy_(eye)
            return self.lib.eye(rows, columns, dtype=dtype, order="F")

    def cho_solve(self, l, b):
        """x with L L^T x = b, by two triangular solves on the GPU (b: a vector or a matrix)."""
        with self._on_device():
            if self.torch:
                columns = b.reshape(b.shape[0], -1)
                y = self.lib.linalg.solve_triangular(l, columns, upper=False)
                return self.lib.linalg.solve_triangular(l.mT, y, upper=True).reshape(b.shape)
            from cupyx.scipy.linalg import solve_triangular
            y = solve_triangular(l, b, lower=True)
            return solve_triangular(l, y, lower=True, trans="T")
