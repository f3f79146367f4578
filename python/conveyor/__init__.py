"""Conveyor from Python: its measurements as records and data frames, and its task runtime on NumPy
arrays (docs/python.md).

    import conveyor
    conveyor.devices().records                  # what `conveyor devices --json` lists
    result = conveyor.stream(threads="1-2")     # the CLI's options as keyword arguments
    result.to_pandas(); result.plot("stream.png")

    with conveyor.Runtime(cpus=2) as rt:
        a = rt.register(numpy_array)            # no copy: tasks see the array's own memory
        rt.submit(lambda x: x.__imul__(2), [(a, "rw")])
        rt.wait()                               # a task's exception is raised here
"""

import pkgutil as _pkgutil

# In a build tree the compiled module is not beside these files but in build/<preset>/python/conveyor
# (PYTHONPATH=build/<preset>/python:python): extend the package over every `conveyor` folder on the
# path. An installed wheel has both in one folder, and this changes nothing.
__path__ = _pkgutil.extend_path(__path__, __name__)

try:
    from . import _core
except ImportError as e:  # pragma: no cover - depends on the build
    raise ImportError(
        f"conveyor._core, the compiled part of the conveyor package, cannot be imported ({e}). "
        "Install the package with `pip install .` from the repository, or build it with `make build` "
        "(CONVEYOR_BUILD_PYTHON; needs nanobind, see scripts/setup-deps.sh) and put "
        "build/release/python and python/ on PYTHONPATH (docs/python.md)"
    ) from e

from ._core import Data, DeviceError, Error, HostAccess, UsageError, ValidationError


def _warn_if_blas_kernels_are_generic():
    """OpenBLAS chooses its kernels when _core loads it; on a CPU newer than the library it falls
    back to generic ones (about 3x slower). The conveyor CLI starts again with the right ones; a
    Python process cannot, so say what to set."""
    core = _core.better_openblas_core()
    if core:
        import warnings

        warnings.warn(
            f"conveyor: OpenBLAS did not recognise this CPU and runs its generic kernels; start "
            f"Python with OPENBLAS_CORETYPE={core} for the kernels the CPU has (about 3x faster "
            "on an Emerald Rapids Xeon; docs/python.md)", RuntimeWarning, stacklevel=3)


_warn_if_blas_kernels_are_generic()
from .runtime import Runtime, Task
from .measure import Result, calibration, devices, pipeline, probe, stream
from . import linalg  # the apps' tile algorithms on NumPy matrices
from . import plot  # the figures of `conveyor plot`; matplotlib is imported only to draw
from . import sim  # the manycore simulator: conveyor.sim.sweep

del _pkgutil, _warn_if_blas_kernels_are_generic, runtime, measure  # public names are here

__all__ = [
    "Data", "DeviceError", "Error", "HostAccess", "Result", "Runtime", "Task", "UsageError",
    "ValidationError", "build", "calibration", "devices", "linalg", "pipeline", "plot", "probe",
    "sim", "stream",
]


def build() -> dict:
    """The build this module was compiled from, as `conveyor --version --json` describes it: a
    dict with the version, the compiler, the backends and the libraries found."""
    import json

    return json.loads(_core.build_json())


__version__ = build().get("version", "")
