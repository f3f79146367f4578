"""conveyor.Runtime on NumPy arrays: zero-copy registration, Python callables as host tasks, errors."""

import threading
import time

import pytest

np = pytest.importorskip("numpy")
conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")


@pytest.fixture
def rt():
    with conveyor.Runtime(cpus=2, pin=False) as runtime:
        yield runtime


def address(array):
    return array.__array_interface__["data"][0]


def test_registration_does_not_copy(rt):
    a = np.arange(1000.0)
    seen = {}

    def task(x):
        seen["address"] = address(x)
        seen["base"] = x.base is not None
        x *= 2

    data = rt.register(a, "a")
    assert data.array is a
    rt.submit(task, [(data, "rw")])
    rt.wait()
    assert seen["address"] == address(a)
    np.testing.assert_array_equal(a, np.arange(1000.0) * 2)  # the write is in the original


def test_results_equal_numpy(rt):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(4096), rng.standard_normal(4096)
    a, b = rng.standard_normal((64, 48)), rng.standard_normal((48, 32))
    c = np.zeros((64, 32))
    expected_y = 3.0 * x + y
    X, Y, A, B, C = (rt.register(v) for v in (x, y, a, b, c))

    def axpy(x, y):
        y += 3.0 * x

    def matmul(a, b, c):
        c[...] = a @ b

    rt.submit(axpy, [(X, "r"), (Y, "rw")])
    rt.submit(matmul, [(A, "r"), (B, "r"), (C, "w")])
    rt.wait()
    np.testing.assert_allclose(y, expected_y)
    np.testing.assert_allclose(c, a @ b)


def test_tasks_run_in_submission_order_on_shared_data(rt):
    counter = np.zeros(1, dtype=np.int64)
    log = np.zeros(50, dtype=np.int64)
    C, L = rt.register(counter), rt.register(log)
    for i in range(50):
        def step(c, log, i=i):
            log[i] = c[0]
            c[0] += 1
        rt.submit(step, [(C, "rw"), (L, "rw")])
    rt.wait()
    assert counter[0] == 50
    np.testing.assert_array_equal(log, np.arange(50))


def test_strided_matrix_keeps_its_padding(rt):
    storage = np.full((6, 8), -1.0)
    view = storage[:4, :5]  # a leading dimension of 8 elements, rows of 5
    data = rt.register(view, "tile")

    def fill(v):
        assert v.shape == (4, 5) and address(v) == address(view)
        v[...] = np.arange(20.0).reshape(4, 5)

    rt.submit(fill, [(data, "w")])
    rt.wait()
    np.testing.assert_array_equal(storage[:4, :5], np.arange(20.0).reshape(4, 5))
    assert (storage[4:, :] == -1).all() and (storage[:, 5:] == -1).all()


def test_a_raising_task_raises_in_wait_with_its_message(rt):
    a = np.zeros(4)
    data = rt.register(a)

    def broken(x):
        raise ValueError("boom in the task")

    rt.submit(broken, [(data, "rw")])
    rt.submit(lambda x: x.fill(1), [(data, "rw")])  # depends on the failed task: not run
    with pytest.raises(conveyor.Error) as caught:
        rt.wait()
    message = str(caught.value)
    assert "task 'broken'" in message and "ValueError: boom in the task" in message
    assert "1 dependent task not run" in message
    assert isinstance(caught.value.__cause__, ValueError)  # the traceback reaches the callable
    assert (a == 0).all()
    rt.submit(lambda x: x.fill(2), [(data, "rw")])  # the runtime goes on after a failure
    rt.wait()
    assert (a == 2).all()


def test_wait_releases_the_gil():
    # Two tasks that each hold a worker for 0.3 s without the GIL: overlapped when wait() lets them.
    with conveyor.Runtime(cpus=2, pin=False) as rt:
        data = [rt.register(np.zeros(1)) for _ in range(2)]
        ticks = []
        stop = threading.Event()
        ticker = threading.Thread(target=lambda: [ticks.append(1) or time.sleep(0.01)
                                                  for _ in iter(stop.is_set, True)])
        ticker.start()
        start = time.perf_counter()
        for d in data:
            rt.submit(lambda x: time.sleep(0.3), [(d, "rw")])
        rt.wait()
        elapsed = time.perf_counter() - start
        stop.set()
        ticker.join()
    assert elapsed < 0.55, f"the two tasks did not overlap ({elapsed:.2f} s)"
    assert len(ticks) > 5  # a Python thread ran while the main one waited


def test_bad_input_is_a_usage_error(rt):
    read_only = np.zeros(3)
    read_only.flags.writeable = False
    with pytest.raises(conveyor.UsageError, match="read-only"):
        rt.register(read_only)
    with pytest.raises(conveyor.UsageError, match="expects a writable array"):
        rt.register([1.0, 2.0])
    with pytest.raises(conveyor.UsageError, match="unit stride"):
        rt.register(np.zeros((4, 4, 4))[:, ::2, ::2])
    data = rt.register(np.zeros(3))
    with pytest.raises(ValueError, match="access mode 'x'"):
        rt.submit(print, [(data, "x")])


def test_unregistered_data_cannot_be_used(rt):
    a = np.zeros(8)
    data = rt.register(a, "gone")
    rt.unregister(data)
    assert not data.registered
    with pytest.raises(conveyor.UsageError, match="not registered"):
        rt.submit(print, [(data, "r")])


def test_closed_runtime_refuses_work():
    rt = conveyor.Runtime(cpus=1, pin=False)
    data = rt.register(np.zeros(2))
    rt.submit(lambda x: x.fill(5), [(data, "rw")])
    rt.close()  # waits for the task first
    assert rt.closed and (data.array == 5).all()
    with pytest.raises(conveyor.UsageError, match="closed"):
        rt.wait()


# ---- built-in codelets, mixed graphs, host access ------------------------------------------------

def spd(n, seed=0):
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def tiled_cholesky(rt, f, b):
    """The apps' tile Cholesky submitted task by task from Python on views of f (Fortran order)."""
    t = f.shape[0] // b
    tile = {(i, j): rt.register(f[i * b:(i + 1) * b, j * b:(j + 1) * b], f"A{i}{j}")
            for j in range(t) for i in range(j, t)}
    for k in range(t):
        rt.submit("potrf", [tile[k, k]])
        for i in range(k + 1, t):
            rt.submit("trsm", [(tile[k, k], "r"), (tile[i, k], "rw")])  # modes may be given
        for i in range(k + 1, t):
            for j in range(k + 1, i):
                rt.submit("gemm", [tile[i, k], tile[j, k], tile[i, j]])
            rt.submit("syrk", [tile[i, k], tile[i, i]])
    return tile


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_builtin_codelets_factorise_as_numpy(rt, dtype, tol):
    a = spd(256).astype(dtype)
    f = np.asfortranarray(a)
    tiled_cholesky(rt, f, 64)
    rt.wait()
    expected = np.linalg.cholesky(a.astype(np.float64))
    assert np.abs(np.tril(f) - expected).max() / np.abs(expected).max() < tol


def test_a_callable_and_builtin_codelets_in_one_graph(rt):
    rng = np.random.default_rng(3)
    x, y = np.asfortranarray(rng.standard_normal((32, 16))), np.asfortranarray(rng.standard_normal((24, 16)))
    c = np.asfortranarray(np.zeros((32, 24)))
    seen = {}
    X, Y, C = rt.register(x), rt.register(y), rt.register(c)

    def fill(c):  # a Python task writes C ...
        c[...] = 1.0

    def read(c):  # ... gemm updates it on a worker ...
        seen["c"] = c.copy()  # ... and another Python task reads the result

    rt.submit(fill, [(C, "w")])
    rt.submit("gemm", [X, Y, C])  # C -= X Y^T
    rt.submit(read, [(C, "r")])
    rt.wait()
    np.testing.assert_allclose(seen["c"], 1.0 - x @ y.T)
    np.testing.assert_allclose(c, 1.0 - x @ y.T)


def test_builtin_codelets_refuse_what_their_kernels_cannot_take(rt):
    f = np.asfortranarray(np.eye(8))
    F = rt.register(f)
    G = rt.register(np.asfortranarray(np.ones((8, 4))))
    H = rt.register(np.asfortranarray(np.eye(8)))
    C = rt.register(np.eye(8))  # C order: the kernels would see its transpose
    I = rt.register(np.asfortranarray(np.eye(8, dtype=np.int64)))
    S = rt.register(np.asfortranarray(np.eye(8, dtype=np.float32)))
    cases = [
        (("lu", [F]), "no built-in codelet 'lu'"),
        (("potrf", [F, F]), "takes 1 tiles, got 2"),
        (("potrf", [G]), "takes A square"),
        (("gemm", [G, F, H]), "A_ij m x n"),
        (("potrf", [C]), "not a column-major matrix"),
        (("potrf", [I]), "float64 or float32"),
        (("syrk", [S, F]), "share one dtype"),
        (("potrf", [(F, "r")]), "has the mode 'readwrite'"),
        ((lambda a: None, [F]), "need their mode"),
        ((42, [F]), "Python callable or the name of a built-in codelet"),
    ]
    for (fn, accesses), message in cases:
        with pytest.raises(conveyor.UsageError, match=message):
            rt.submit(fn, accesses)
    rt.wait()
    np.testing.assert_array_equal(f, np.eye(8))  # nothing ran


def test_builtin_failure_raises_with_the_kernels_message(rt):
    F = rt.register(np.asfortranarray(-np.eye(8)))
    rt.submit("potrf", [F])
    with pytest.raises(conveyor.Error, match="not positive definite"):
        rt.wait()


def test_acquire_sees_the_tasks_before_it_and_holds_later_writers(rt):
    a = np.zeros(1000)
    A = rt.register(a)
    started = threading.Event()

    def slow_write(x):
        started.set()
        time.sleep(0.05)
        x += 1

    rt.submit(slow_write, [(A, "rw")])
    with A.acquire("r") as view:
        assert view[0] == 1.0 and np.shares_memory(view, a)  # the write before it is there
        rt.submit(lambda x: x.__iadd__(1), [(A, "rw")])
        time.sleep(0.05)
        assert a[0] == 1.0  # the later writer waits while the access is held
    rt.wait()
    assert a[0] == 2.0
    held = A.acquire()
    held.release()
    held.release()  # twice is harmless
    assert held.released and held.array is None


def test_close_releases_open_accesses():
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        A = rt.register(np.zeros(8))
        held = A.acquire("rw")
    assert held.released
    with pytest.raises(conveyor.UsageError, match="not registered"):
        A.acquire()


def test_an_object_with_only_dlpack_registers_without_a_copy(rt):
    class OnlyDlpack:  # no buffer protocol, no __array_interface__: DLPack alone
        def __init__(self, array):
            self._array = array

        def __dlpack__(self, **kwargs):
            return self._array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self._array.__dlpack_device__()

    a = np.arange(16.0)
    data = rt.register(OnlyDlpack(a))
    rt.submit(lambda x: x.__imul__(2), [(data, "rw")])
    rt.wait()
    np.testing.assert_array_equal(a, np.arange(16.0) * 2)


def test_discard_waits_for_the_tasks_and_keeps_the_data_usable(rt):
    a = np.zeros(8)
    data = rt.register(a, "scratch")
    task = rt.submit(lambda x: (time.sleep(0.05), x.fill(3)), [(data, "w")])
    rt.discard(data)
    assert task.done()  # it waited for the task that writes it
    rt.submit(lambda x: x.fill(7), [(data, "w")])
    rt.wait()
    assert (a == 7).all()
    rt.unregister(data)
    with pytest.raises(conveyor.UsageError, match="not registered"):
        rt.discard(data)


def test_discarded_device_results_are_not_copied_home():
    if not any(d["id"] == "opencl:0" for d in conveyor.devices().records):
        pytest.skip("needs an OpenCL device (PoCL in CI)")
    a = np.asfortranarray(np.ones((4, 4)))
    c = np.asfortranarray(np.zeros((4, 4)))
    with conveyor.Runtime(devices="opencl:0", cpus=0, pin=False) as rt:
        da, dc = rt.register(a, "a"), rt.register(c, "c")
        rt.submit("syrk", [da, dc])  # c -= a a^T (lower) on the device
        rt.discard(dc)
        rt.wait()
        stats = rt.stats()
    assert (c == 0).all()  # the device's -4 never came home
    assert stats["d2h_copies"] == 0
