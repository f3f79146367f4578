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
