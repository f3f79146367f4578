"""Arrays from any DLPack producer: registered in place, read by conveyor.linalg without a copy,
results returned as the same kind of array. The NumPy and custom-producer cases run everywhere;
PyTorch and CuPy ones where those are installed (and a GPU for their CUDA arrays)."""

import sys
import types

import pytest

np = pytest.importorskip("numpy")
conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")

from conveyor import _arrays  # noqa: E402  (the package's DLPack helpers)


class Producer:
    """A minimal DLPack producer over a NumPy array: no buffer protocol, no __array_interface__,
    and a module (this test file) without from_dlpack, so results come back as NumPy."""

    def __init__(self, array, device=None):
        self.array = array
        self.device = device

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device or self.array.__dlpack_device__()


def spd(n, seed=3):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def test_a_registered_producer_is_the_same_memory(tmp_path):
    a = np.arange(12.0)
    with conveyor.Runtime(cpus=2, pin=False) as rt:
        data = rt.register(Producer(a))
        rt.submit(lambda x: x.__imul__(3), [(data, "rw")]).wait()
        with data.acquire("r") as view:
            assert np.shares_memory(view, a)
            np.testing.assert_array_equal(view, np.arange(12.0) * 3)
    np.testing.assert_array_equal(a, np.arange(12.0) * 3)  # written through the runtime


def test_host_arrays_are_read_in_place():
    a = spd(8)
    assert _arrays.host_array(a, "t") is a
    assert np.shares_memory(_arrays.host_array(Producer(a), "t"), a)
    strided = a[::2, ::2]  # not contiguous: still a view
    assert np.shares_memory(_arrays.host_array(Producer(strided), "t"), a)


@pytest.mark.parametrize("order", ["C", "F"])
def test_linalg_takes_a_producer_and_returns_numpy_for_it(order):
    a = np.array(spd(100), order=order)
    before = a.copy()
    L = conveyor.linalg.cholesky(Producer(a), block=32, cpus=2)
    assert type(L) is np.ndarray
    np.testing.assert_allclose(L, np.linalg.cholesky(a), rtol=1e-10, atol=1e-10)
    assert np.array_equal(a, before)  # read, never written
    q, r = conveyor.linalg.qr(Producer(a[:, :60]), cpus=2)
    np.testing.assert_allclose(q @ r, a[:, :60], atol=1e-10)
    x = conveyor.linalg.solve(Producer(a), Producer(np.ones(100)), cpus=2)
    np.testing.assert_allclose(a @ x, np.ones(100), atol=1e-10)


def test_non_contiguous_read_only_and_integer_producers_follow_numpys_rules():
    a = spd(120)
    expected = np.linalg.cholesky(a[::2, ::2])
    readonly = np.array(a[::2, ::2])
    readonly.flags.writeable = False
    for source in (a[::2, ::2], readonly):
        L = conveyor.linalg.cholesky(Producer(source), cpus=2)
        np.testing.assert_allclose(L, expected, rtol=1e-10, atol=1e-10)
    L = conveyor.linalg.cholesky(Producer(np.array([[4, 2], [2, 3]], dtype=np.int32)), cpus=1)
    assert L.dtype == np.float64  # integers computed in float64, as for NumPy input
    with pytest.raises(conveyor.UsageError, match="complex"):
        conveyor.linalg.cholesky(Producer(np.eye(3, dtype=complex)))


def test_a_read_only_producer_cannot_be_registered():
    readonly = np.zeros(4)
    readonly.flags.writeable = False
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        with pytest.raises(conveyor.UsageError, match="read-only|writable"):
            rt.register(Producer(readonly))


@pytest.mark.parametrize("device", [(4, 0), (10, 1), (2, 0)], ids=["opencl", "rocm", "cuda"])
def test_an_unsupported_device_is_a_type_error(device):
    on_device = Producer(np.eye(4), device=device)
    with pytest.raises(TypeError, match="not supported"):
        conveyor.linalg.cholesky(on_device)
    with pytest.raises(TypeError, match="not supported"):
        conveyor.linalg.solve(np.eye(4), on_device)
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        message = ("which this runtime does not have \\(its devices: none\\); make the runtime "
                   "with devices='cuda:0'" if device[0] == 2 else
                   "host memory and CUDA device memory only")
        with pytest.raises(TypeError, match=message):
            rt.register(on_device)


def test_a_producer_that_cannot_export_is_a_type_error():
    class Refuses(Producer):
        def __dlpack__(self, **kwargs):
            raise BufferError("bfloat16 is not exported")

    with pytest.raises(TypeError, match="bfloat16 is not exported"):
        conveyor.linalg.cholesky(Refuses(np.eye(2)))


def test_results_come_back_through_the_producers_library(monkeypatch):
    # A library of its own (as torch or jax would be): its module has from_dlpack, so results are
    # its arrays.
    library = types.ModuleType("fakearrays")

    class FakeArray(Producer):
        pass

    FakeArray.__module__ = "fakearrays"
    library.FakeArray = FakeArray
    library.from_dlpack = lambda x: FakeArray(np.from_dlpack(x))
    monkeypatch.setitem(sys.modules, "fakearrays", library)
    a = spd(40)
    L = conveyor.linalg.cholesky(FakeArray(a), cpus=1)
    assert isinstance(L, FakeArray)
    np.testing.assert_allclose(L.array, np.linalg.cholesky(a), rtol=1e-10, atol=1e-10)
    q, r = conveyor.linalg.qr(FakeArray(a), cpus=1)
    assert isinstance(q, FakeArray) and isinstance(r, FakeArray)
    r_alone = conveyor.linalg.qr(FakeArray(a), mode="r", cpus=1)
    assert isinstance(r_alone, FakeArray)


# PyTorch and CuPy: run where installed; their CUDA arrays where a CUDA GPU is there too.

def _torch():
    return pytest.importorskip("torch", reason="PyTorch is not installed")


def _cuda_torch():
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA GPU")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("CuPy sees no CUDA GPU")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy sees no CUDA GPU ({e})")
    return cupy


def test_torch_cpu_tensors_in_place_and_out():
    torch = _torch()
    a = torch.from_numpy(spd(64))
    with conveyor.Runtime(cpus=2, pin=False) as rt:
        t = torch.zeros(8, dtype=torch.float64)
        data = rt.register(t)
        rt.submit(lambda x: x.fill(5), [(data, "w")]).wait()
    assert torch.all(t == 5)  # written in the tensor's own memory
    L = conveyor.linalg.cholesky(a, cpus=2)
    assert isinstance(L, torch.Tensor) and L.device.type == "cpu" and L.dtype == torch.float64
    torch.testing.assert_close(L, torch.linalg.cholesky(a))


def test_torch_cuda_tensors_come_back_on_their_gpu():
    torch = _cuda_torch()
    a = torch.from_numpy(spd(256)).cuda()
    L = conveyor.linalg.cholesky(a, cpus=2)
    assert L.is_cuda and L.device == a.device
    torch.testing.assert_close(L, torch.linalg.cholesky(a))
    q, r = conveyor.linalg.qr(a[:, :128], cpus=2)
    assert q.is_cuda and r.is_cuda
    torch.testing.assert_close(q @ r, a[:, :128])
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        with pytest.raises(TypeError, match="which this runtime does not have"):
            rt.register(a)


def test_torch_cuda_tensors_factorised_on_the_gpu():
    torch = _cuda_torch()
    if not any(d["id"] == "cuda:0" for d in conveyor.devices().records):
        pytest.skip("this build has no CUDA backend")
    a = torch.from_numpy(spd(512)).cuda()
    L = conveyor.linalg.cholesky(a, devices="cuda:0", cpus=0, block=128)
    assert L.is_cuda
    torch.testing.assert_close(L, torch.linalg.cholesky(a))


def test_cupy_arrays_come_back_on_their_gpu():
    cupy = _cupy()
    a = cupy.asarray(spd(256))
    L = conveyor.linalg.cholesky(a, cpus=2)
    assert isinstance(L, cupy.ndarray) and L.device.id == a.device.id
    cupy.testing.assert_allclose(L, cupy.linalg.cholesky(a), rtol=1e-10, atol=1e-10)
    x = conveyor.linalg.solve(a, cupy.ones(256), cpus=2)
    assert isinstance(x, cupy.ndarray)
    cupy.testing.assert_allclose(a @ x, cupy.ones(256), atol=1e-10)


# Arrays in CUDA memory registered in place (data whose home is the GPU): only on a machine with a
# CUDA GPU, CuPy or PyTorch, and a build with the CUDA backend.

def _cuda_array_library():
    """(library, make) for CuPy, else PyTorch, with a CUDA GPU; skips otherwise."""
    reason = "needs a CUDA device (CuPy or PyTorch)"
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return cupy, lambda a: cupy.asarray(a)
    except Exception:  # not installed, or no driver / GPU
        pass
    try:
        import torch
        if torch.cuda.is_available():
            return torch, lambda a: torch.from_numpy(a).cuda()
    except ImportError:
        pass
    pytest.skip(reason)


def _cuda_runtime(**kwargs):
    if not any(d["id"] == "cuda:0" for d in conveyor.devices().records):
        pytest.skip("needs a CUDA device (CuPy or PyTorch) and the CUDA backend in this build")
    return conveyor.Runtime(devices="cuda:0", pin=False, **kwargs)


def test_a_cuda_array_is_registered_in_place_on_its_gpu():
    library, make = _cuda_array_library()
    x = make(np.arange(64.0))
    with _cuda_runtime(cpus=1) as rt:
        data = rt.register(x, "x")
        rt.submit(lambda v: v.__imul__(2), [(data, "rw")]).wait()  # a host task: a copy out
        with data.acquire("r") as view:  # a host copy of the GPU array
            np.testing.assert_array_equal(view, np.arange(64.0) * 2)
        rt.wait()
        stats = rt.stats()
    assert stats["h2d_copies"] >= 1  # the host task's result went back to the GPU array
    np.testing.assert_array_equal(np.asarray(x.get() if hasattr(x, "get") else x.cpu()),
                                  np.arange(64.0) * 2)


def test_a_strided_cuda_array_is_registered_in_place_on_its_gpu():
    # A block of a column-major GPU matrix (leading dimension 8, 5 x 3): a strided home, copied on
    # the GPU into a block of the runtime's and back; the rest of the matrix is never written.
    library, make = _cuda_array_library()
    host = np.arange(48.0).reshape(6, 8)
    x = make(host)
    block = x.T[:5, 1:4]
    with _cuda_runtime(cpus=1) as rt:
        data = rt.register(block, "block")
        rt.submit(lambda v: v.__imul__(2), [(data, "rw")]).wait()  # a host task: a copy out
        rt.wait()
    expected = host.T.copy()
    expected[:5, 1:4] *= 2
    back = np.asarray(x.get() if hasattr(x, "get") else x.cpu())
    np.testing.assert_array_equal(back.T, expected)


def test_a_cuda_array_on_a_runtime_without_that_gpu_is_a_type_error():
    on_device = Producer(np.zeros(4), device=(2, 3))
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        with pytest.raises(TypeError, match="on cuda:3, which this runtime does not have"):
            rt.register(on_device)


# conveyor.linalg on a CUDA array with the array's GPU among the runtime's devices: factorised where
# it lives (each tile data whose home is the GPU), results of the array's library on its GPU. Only
# on a machine with a CUDA GPU, the library, and a build with the CUDA backend.

def _gpu_library(name):
    """(library, to the GPU, to NumPy) for "cupy" or "torch"; skips without a CUDA GPU there."""
    reason = "needs a CUDA device (CuPy or PyTorch)"
    try:
        if name == "cupy":
            import cupy
            if cupy.cuda.runtime.getDeviceCount() > 0:
                return cupy, cupy.asarray, cupy.asnumpy
        else:
            import torch
            if torch.cuda.is_available():
                return (torch, lambda a: torch.from_numpy(np.asarray(a)).cuda(),
                        lambda t: t.cpu().numpy())
    except Exception:  # not installed, or no driver / GPU
        pass
    pytest.skip(reason)


def _gpu_library_and_backend(name):
    library = _gpu_library(name)
    if not any(d["id"] == "cuda:0" for d in conveyor.devices().records):
        pytest.skip("needs a CUDA device (CuPy or PyTorch) and the CUDA backend in this build")
    return library


def _same_kind_on_gpu(result, original):
    assert type(result) is type(original)
    assert str(result.device) == str(original.device)


@pytest.mark.parametrize("name", ["cupy", "torch"])
def test_cholesky_and_solve_of_cupy_or_torch_arrays_run_on_their_gpu(name):
    library, to_gpu, to_numpy = _gpu_library_and_backend(name)
    a_host = spd(300)
    a = to_gpu(a_host)
    for cpus in (0, 2):  # every task on the GPU; and CPU workers working on copies of tiles
        L = conveyor.linalg.cholesky(a, devices="cuda:0", cpus=cpus, block=64)
        _same_kind_on_gpu(L, a)
        np.testing.assert_allclose(to_numpy(L), np.linalg.cholesky(a_host), rtol=1e-10,
                                   atol=1e-10)
    np.testing.assert_array_equal(to_numpy(a), a_host)  # the input is left as it was
    L32 = conveyor.linalg.cholesky(to_gpu(a_host.astype(np.float32)), devices="all", cpus=0)
    assert to_numpy(L32).dtype == np.float32
    b = to_gpu(np.arange(300.0))
    x = conveyor.linalg.solve(a, b, devices="cuda:0", cpus=0, block=64)
    _same_kind_on_gpu(x, b)
    np.testing.assert_allclose(a_host @ to_numpy(x), np.arange(300.0), atol=1e-8)


@pytest.mark.parametrize("name", ["cupy", "torch"])
def test_cholesky_failures_of_cupy_or_torch_arrays_on_their_gpu(name):
    library, to_gpu, to_numpy = _gpu_library_and_backend(name)
    a = spd(128)
    a[70, 70] = -1.0
    with pytest.raises(conveyor.linalg.LinAlgError, match="not positive definite") as e:
        conveyor.linalg.cholesky(to_gpu(a), devices="cuda:0", cpus=0, block=32)
    assert e.value.minor is None  # not known on a device
    a = spd(128)
    a[90, 3] = np.nan
    with pytest.raises(conveyor.UsageError, match="non-finite entry"):
        conveyor.linalg.cholesky(to_gpu(a), devices="cuda:0", cpus=0)


@pytest.mark.parametrize("name", ["cupy", "torch"])
def test_qr_of_cupy_or_torch_arrays_runs_on_their_gpu(name):
    library, to_gpu, to_numpy = _gpu_library_and_backend(name)
    rng = np.random.default_rng(5)
    for m, n in ((200, 200), (300, 120)):
        a_host = rng.standard_normal((m, n))
        a = to_gpu(a_host)
        q, r = conveyor.linalg.qr(a, devices="cuda:0", cpus=0, block=64)
        _same_kind_on_gpu(q, a)
        _same_kind_on_gpu(r, a)
        q, r = to_numpy(q), to_numpy(r)
        assert q.shape == (m, n) and r.shape == (n, n)
        np.testing.assert_allclose(q @ r, a_host, atol=1e-10)
        np.testing.assert_array_equal(np.tril(r, -1), 0)
        r_only = to_numpy(conveyor.linalg.qr(a, "r", devices="cuda:0", cpus=0, block=64))
        np.testing.assert_allclose(np.abs(r_only), np.abs(r), atol=1e-10)
        q, r = conveyor.linalg.qr(a, "complete", devices="cuda:0", cpus=0, block=64)
        assert tuple(q.shape) == (m, m) and tuple(r.shape) == (m, n)
