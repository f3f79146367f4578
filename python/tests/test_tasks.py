"""conveyor.Task, what Runtime.submit returns: an int (the task's id) one can wait on."""

import threading

import pytest

np = pytest.importorskip("numpy")
conveyor = pytest.importorskip("conveyor", reason="conveyor._core is not built")


@pytest.fixture
def rt():
    with conveyor.Runtime(cpus=2, pin=False) as runtime:
        yield runtime


def test_submit_returns_a_task_that_is_still_its_id(rt):
    data = rt.register(np.zeros(4))
    first = rt.submit(lambda x: x.__iadd__(1), [(data, "rw")])
    second = rt.submit(lambda x: x.__iadd__(1), [(data, "rw")], name="second")
    assert isinstance(first, conveyor.Task) and isinstance(first, int)
    assert second > first and int(second) == int(first) + 1  # ids increase, as before
    second.wait()
    assert first.done() and second.done()
    assert repr(second) == f"<conveyor.Task #{int(second)} done>"
    assert str(second) == f"{second}" == str(int(second))  # prints as the id did
    assert {first: "a"}[int(first)] == "a"  # hashes and compares as its id
    rt.submit("potrf", [rt.register(np.eye(4, order="F"))]).wait()


def test_wait_for_one_task_and_a_timeout(rt):
    gate = threading.Event()
    held, other = rt.register(np.zeros(1)), rt.register(np.zeros(1))
    blocked = rt.submit(lambda x: gate.wait(10), [(held, "rw")], name="held back")
    independent = rt.submit(lambda x: x.fill(1), [(other, "rw")])
    independent.wait(timeout=10)  # returns while the other task still runs
    assert independent.done() and not blocked.done()
    assert repr(blocked) == f"<conveyor.Task #{int(blocked)} pending>"
    with pytest.raises(TimeoutError, match=f"task #{int(blocked)} has not finished after 0.05 s"):
        blocked.wait(timeout=0.05)
    with pytest.raises(TimeoutError):
        blocked.wait(timeout=0)
    gate.set()
    blocked.wait(timeout=10)
    assert blocked.done()
    blocked.wait()  # again, long after it finished
    with pytest.raises(conveyor.UsageError, match="timeout"):
        blocked.wait(timeout=-1)


def test_a_failed_task_raises_at_its_wait_and_still_at_runtime_wait(rt):
    a = np.zeros(4)
    data = rt.register(a)

    def broken(x):
        raise ValueError("boom in the task")

    task = rt.submit(broken, [(data, "rw")])
    dependant = rt.submit(lambda x: x.fill(1), [(data, "rw")], name="after it")
    with pytest.raises(conveyor.Error, match="boom in the task") as caught:
        task.wait(timeout=10)
    assert isinstance(caught.value.__cause__, ValueError)  # the callable's own exception
    assert task.done()
    with pytest.raises(conveyor.Error, match="'after it'.*not run"):
        dependant.wait(timeout=10)
    with pytest.raises(conveyor.Error, match="1 dependent task not run"):
        rt.wait()  # the failure is still reported to Runtime.wait
    with pytest.raises(conveyor.Error, match="boom in the task"):
        task.wait()  # and to the task's wait after it
    assert (a == 0).all()


def test_tasks_of_a_closed_or_deleted_runtime_are_done():
    with conveyor.Runtime(cpus=1, pin=False) as rt:
        task = rt.submit(lambda x: x.fill(1), [(rt.register(np.zeros(2)), "rw")])
    assert task.done()
    with pytest.raises(conveyor.UsageError, match="closed"):
        task.wait()
    rt = conveyor.Runtime(cpus=1, pin=False)
    task = rt.submit(lambda x: x.fill(1), [(rt.register(np.zeros(2)), "rw")])
    del rt  # the task does not keep its runtime alive; the runtime's end waited for it
    assert task.done()
    with pytest.raises(conveyor.UsageError, match="closed"):
        task.wait()
