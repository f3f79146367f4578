"""Arrays from any DLPack producer (NumPy, PyTorch, CuPy, ...) in, the same kind of array out.

Host arrays are read through DLPack in place (numpy.from_dlpack: a view, no copy).
Runtime.register takes an array on a CUDA device in place too, as data whose home is that device
(require_registrable). conveyor.linalg's tile algorithms partition the matrix into tiles, which
device memory cannot be (device replicas are contiguous, tiles of a matrix are not), so there an
array on a CUDA device is copied to the host explicitly (by its own library: PyTorch's .cpu(),
CuPy's .get()); the runtime then copies tiles to the devices it runs on itself. Results go back
with the input's library and onto the input's device.
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
