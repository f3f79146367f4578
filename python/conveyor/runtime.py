"""conveyor.Runtime: the task runtime on this process's NumPy arrays. The compiled class
(conveyor._core.Runtime) does the work; this subclass gives its methods Python signatures and
docstrings (inspect.signature, help) and checks the constructor's arguments first."""

import weakref as _weakref

from . import _arrays, _checks, _core

__all__ = ["Runtime", "Task"]

_core_runtime = _core.Runtime
_submit = _core_runtime.submit  # looked up once: submit is the call made per task
_wait_task = _core_runtime._wait_task
_task_done = _core_runtime._task_done


class Task(int):
    """A submitted task, as Runtime.submit returns it: its id (an int, increasing in submission
    order, usable wherever the id was), and a handle one can wait on.

        task = rt.submit(fn, [(x, "rw")])
        task.wait(timeout=5)   # returns when it has finished; raises if it failed
        task.done()            # True once it has run, failed or been cancelled

    Made by Runtime.submit only. Each runtime has its own subclass, which holds a weak reference
    to it: a task is then just an int (submit is the call made per task), and keeps no runtime
    alive.
    """

    __slots__ = ()
    _runtime = staticmethod(lambda: None)  # the runtime's weakref.ref, on its own subclass

    def wait(self, timeout=None):
        """Waits (the GIL released) until this task has finished, `timeout` seconds at most (None:
        no limit). Raises TimeoutError when it has not finished by then; conveyor.Error when it
        failed (a Python task's exception is its __cause__) or was not run because a task it
        depends on failed. Runtime.wait() still reports the failure too. Reads of the task's
        output go through Data.acquire or Runtime.wait (the data may still be on a device)."""
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or \
                    not timeout >= 0:
                raise _core.UsageError(f"Task.wait: timeout must be None or a number of seconds "
                                       f">= 0 (got {timeout!r})")
        runtime = self._runtime()
        if runtime is None:
            raise _core.UsageError("the runtime is closed")
        if not _wait_task(runtime, int(self), -1.0 if timeout is None else float(timeout)):
            raise TimeoutError(f"task #{int(self)} has not finished after {timeout} s")

    def done(self):
        """Whether the task has finished (run, failed or cancelled), without waiting; True after
        the runtime is closed."""
        runtime = self._runtime()
        return runtime is None or _task_done(runtime, int(self))

    def __repr__(self):
        return f"<conveyor.Task #{int(self)} {'done' if self.done() else 'pending'}>"

    __str__ = int.__repr__  # str() and f-strings give the id, as they did for the int


class Runtime(_core_runtime):
    """Conveyor's task runtime on this process's arrays (docs/python.md): register arrays without
    copying them, submit tasks over them (Python callables on CPU workers, or the built-in tile
    codelets by name on any worker), wait. A context manager: `with` closes it at the end.

        with conveyor.Runtime(cpus=2) as rt:
            x = rt.register(array)                    # the runtime uses the array's memory
            rt.submit(lambda v: v.__imul__(2), [(x, "rw")])
            rt.wait()                                 # a task's exception is raised here

    Raises conveyor.UsageError (a ValueError) for a bad argument, an unknown device or scheduler;
    conveyor.Error when a task fails (at wait()).
    """

    def __init__(self, devices="cpu", cpus=-1, pin=True, scheduler="auto", trace=False,
                 perf_models="", max_submitted=0):
        """Starts the workers.

        devices        'cpu' (CPU workers only, default), 'all' (every OpenCL and CUDA device
                       found), an id such as 'opencl:0' or 'cuda:0', or a list of ids. Python
                       callables run on the CPU workers only (their data comes home first).
        cpus           CPU workers: -1 (default) one per core, 0 none (device tasks only).
        pin            pin each CPU worker to a core (default True).
        scheduler      'auto' (default: 'model' with devices, else 'eager'), 'model',
                       'model-ready', 'eager', 'round-robin', 'offload', 'locality'.
        trace          record a Chrome trace, written by write_trace(path).
        perf_models    the model schedulers' performance models file ('' the default file next
                       to the probe's calibration, 'none' kept in memory only).
        max_submitted  tasks submitted but not finished at most, past which submit() waits
                       (0: $CONVEYOR_MAX_SUBMITTED, else one per 256 KiB of memory).
        """
        what = "Runtime"
        for name, value in (("pin", pin), ("trace", trace)):
            if not isinstance(value, bool):
                raise _core.UsageError(f"Runtime: {name} must be True or False (got {value!r})")
        super().__init__(_checks.devices(devices, what), _checks.cpus(cpus, what), pin,
                         _checks.text(scheduler, what, "scheduler"), trace,
                         _checks.text(perf_models, what, "perf_models"),
                         _checks.integer(max_submitted, "Runtime: max_submitted", minimum=0))
        self._task = type("Task", (Task,), {"__slots__": (), "__module__": Task.__module__,
                                            "_runtime": _weakref.ref(self)})

    def register(self, array, name=""):
        """Registers `array` without copying it and returns its conveyor.Data handle; tasks then
        see the array's own memory. The array is a writable one in host memory (NumPy, or any
        DLPack producer: a CPU torch.Tensor, ...; or an object with the buffer protocol) that is
        contiguous, or 2-D with unit stride along one axis (a slice of a larger matrix). name:
        shown in errors and the trace.

        An array on CUDA device k (a CuPy array, a CUDA tensor: DLPack device type 2) that is
        contiguous is registered in place as data whose home is `cuda:k`, when this runtime has
        that device (devices="cuda:k" or "all"): tasks there use it without a copy, host tasks and
        acquire() get a host copy, and wait() leaves the latest values in the GPU array. Without
        that device it raises TypeError saying so (tasks could not write into it)."""
        _arrays.require_registrable(array, self.workers(), "register")
        return _core_runtime.register(self, array, name)

    def unregister(self, data):
        """Waits for the tasks that use `data`, then lets its array go (it holds the latest
        contents)."""
        return _core_runtime.unregister(self, data)

    def discard(self, data):
        """Gives up the contents of `data` (scratch, such as an iteration's second buffer): waits
        for the tasks submitted so far that use it, then drops its copies on the devices without
        bringing them home, so that neither wait() nor unregister copies it. The array keeps what
        it held last, maybe an older version; write it whole (mode 'w') before reading it again.
        A GPU array registered in place keeps its contents."""
        return _core_runtime.discard(self, data)

    def submit(self, fn, accesses, priority=0, name=""):
        """Submits a task and returns its conveyor.Task: an int (its id, increasing in submission
        order) with wait(timeout=None) and done().

        fn: a Python callable, run on a CPU worker as fn(*views) with one NumPy view per access
        (the registered memory, with the array's shape); or the name of a built-in codelet, run
        on any worker that implements it: 'potrf' (A), 'trsm' (A_kk, A_ik), 'syrk' (A_ik, A_ii),
        'gemm' (A_ik, A_jk, A_ij: A_ij -= A_ik A_jk^T), on Fortran-ordered float64 or float32
        tiles. accesses: [(data, 'r' | 'w' | 'rw'), ...] in fn's argument order (the runtime
        orders the tasks by them); built-in codelets imply their modes, so bare Data will do.
        priority: higher first among ready tasks. name: the task's name in errors and the trace
        (default: the callable's __name__). Raises conveyor.UsageError for a bad access, mode or
        tile shape.
        """
        return self._task(_submit(self, fn, accesses, priority, name))

    def wait(self):
        """Waits for every task submitted (the GIL is released meanwhile). Raises conveyor.Error
        when a task failed: the task's name, the worker and the message; a Python task's
        exception is its __cause__. The runtime goes on after a failure."""
        return _core_runtime.wait(self)

    def close(self):
        """Waits for the tasks, releases open host accesses and stops the workers (also at the
        end of a `with` block and at interpreter exit). Closing twice is harmless."""
        return _core_runtime.close(self)

    def workers(self):
        """The workers' names, one per worker ('cpu worker 0', ...; then the devices')."""
        return _core_runtime.workers(self)

    def stats(self):
        """Counts so far, as a dict: tasks, scheduler (the policy 'auto' chose), h2d_copies,
        h2d_bytes, d2h_copies, d2h_bytes."""
        return _core_runtime.stats(self)

    def write_trace(self, path):
        """Writes the Chrome trace (Runtime(trace=True)) to `path`, for chrome://tracing or
        Perfetto."""
        return _core_runtime.write_trace(self, str(path))


_core_acquire = _core.Data.acquire
_core_release = _core.HostAccess.release


def _acquire(self, mode="rw"):
    """Waits (the GIL released) for the tasks submitted before it and returns a
    conveyor.HostAccess holding the latest contents in the array's own memory until released;
    tasks that need the data wait meanwhile. mode: 'r', 'w' or 'rw' (default). Use it as
    `with data.acquire('r') as view: ...` (view: the array's memory with its shape), and release
    it before Runtime.wait() (a task waiting for the data would wait for ever)."""
    return _core_acquire(self, mode)


def _release(self):
    """Ends the host access: the tasks that wait for the data may run. Releasing twice is
    harmless."""
    return _core_release(self)


_acquire.__name__ = _acquire.__qualname__ = "acquire"
_release.__name__ = _release.__qualname__ = "release"
_core.Data.acquire = _acquire
_core.HostAccess.release = _release
