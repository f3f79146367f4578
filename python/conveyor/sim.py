"""The manycore simulator of seed 002 (`conveyor sim`): its sweep, with the CLI's options as keyword
arguments and the records of `conveyor sim sweep --json-out`."""

import os as _os

from . import _core
from .measure import _list_text, _load, _path_text, _size_text

__all__ = ["sweep"]


def _programs_folder(programs) -> str:
    """The folder of built programs to use: `programs` when given, else $CONVEYOR_SIM_PROGRAMS
    (the simulator reads it), else the wheel's conveyor/sim_programs, else the build tree's
    folder ("": the simulator's default). Raises UsageError saying why there are none."""
    if programs is not None:
        return _path_text(programs, "programs")
    if _os.environ.get("CONVEYOR_SIM_PROGRAMS"):
        return ""
    from . import __path__ as package_folders  # a build tree has two: python/ and the build's

    for folder in package_folders:
        packaged = _os.path.join(folder, "sim_programs")
        if _os.path.isdir(packaged):
            return packaged
    if _core.sim_programs_built:
        return ""
    raise _core.UsageError(
        "sim: this conveyor package was built without the simulator's RISC-V programs "
        "(cmake found no riscv64-unknown-elf-gcc then, or CONVEYOR_BUILD_SIM_PROGRAMS was OFF): "
        "install "
        "gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf and build it again (pip "
        "install . from the repository, or make build); or pass programs=FOLDER of built "
        "programs, or set CONVEYOR_SIM_PROGRAMS")


def sweep(*, benchmarks=None, nodes="16,64", entries="0,8,16,32", threads=None, config=None,
          flit_bytes=None, packet_bytes=None, router_buffer=None, dma_queue=None, dma_setup=None,
          barrier_latency=None, mem_latency=None, mem_bandwidth=None, local_memory=None,
          main_memory=None, max_cycles=None, programs=None):
    """`conveyor sim sweep`: benchmarks x node counts x store-buffer sizes, one record per run
    (benchmark, nodes, entries, cycles, relative_cycles, stall_cycles, relative_stalls, ...), the
    relative figures against the 0-entry run of the same benchmark and node count (added when
    `entries` lacks it): the seed's figures 4 and 5.

    benchmarks: a list or comma-separated text (default: the seed's five). nodes, entries: an int,
    a list of ints or the CLI's text ("16,64"); nodes are square meshes. threads: host threads
    (default: all). config: a JSON file of machine parameters, which the other keywords override
    (None keeps the file's or the default value; local_memory and main_memory take "512K"-style
    text or ints). programs: the folder of built programs (default: $CONVEYOR_SIM_PROGRAMS, else
    the ones installed with the package, else the build tree's). Returns a conveyor.Result.
    Raises conveyor.UsageError (a ValueError) for what the CLI refuses, and when this build has
    no programs (it says why)."""
    if benchmarks is None:
        benchmarks = []
    elif isinstance(benchmarks, str):
        benchmarks = benchmarks.split(",")
    machine = dict(
        config=_path_text(config, "config"), flit_bytes=flit_bytes, packet_bytes=packet_bytes,
        router_buffer=router_buffer, dma_queue=dma_queue, dma_setup=dma_setup,
        barrier_latency=barrier_latency, mem_latency=mem_latency, mem_bandwidth=mem_bandwidth,
        local_memory=_size_text(local_memory, "local_memory"),
        main_memory=_size_text(main_memory, "main_memory"), max_cycles=max_cycles,
        programs=_programs_folder(programs))
    return _load(_core.sim_sweep_json(
        benchmarks=list(benchmarks), nodes=_list_text(nodes, "nodes"),
        entries=_list_text(entries, "entries"), threads=threads or 0, machine=machine))
