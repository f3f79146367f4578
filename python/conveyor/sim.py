"""The manycore simulator of seed 002 (`conveyor sim`): its sweep, with the CLI's options as keyword
arguments and the records of `conveyor sim sweep --json-out`."""

from __future__ import annotations

from . import _core
from .measure import Result, _list_text, _load, _path_text, _size_text


def sweep(*, benchmarks=None, nodes="16,64", entries="0,8,16,32", threads: int | None = None,
          config=None, flit_bytes: int | None = None, packet_bytes: int | None = None,
          router_buffer: int | None = None, dma_queue: int | None = None,
          dma_setup: int | None = None, barrier_latency: int | None = None,
          mem_latency: int | None = None, mem_bandwidth: int | None = None, local_memory=None,
          main_memory=None, max_cycles: int | None = None, programs=None) -> Result:
    """`conveyor sim sweep`: benchmarks x node counts x store-buffer sizes, one record per run
    (benchmark, nodes, entries, cycles, relative_cycles, stall_cycles, relative_stalls, ...), the
    relative figures against the 0-entry run of the same benchmark and node count (added when
    `entries` lacks it): the seed's figures 4 and 5.

    benchmarks: a list or comma-separated text (default: the seed's five). nodes, entries: an int,
    a list of ints or the CLI's text ("16,64"); nodes are square meshes. threads: host threads
    (default: all). config: a JSON file of machine parameters, which the other keywords override
    (None keeps the file's or the default value; local_memory and main_memory take "512K"-style
    text or ints). programs: the folder of built programs (default as the CLI's).
    Raises conveyor.UsageError (a ValueError) for what the CLI refuses."""
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
        programs=_path_text(programs, "programs"))
    return _load(_core.sim_sweep_json(
        benchmarks=list(benchmarks), nodes=_list_text(nodes, "nodes"),
        entries=_list_text(entries, "entries"), threads=threads or 0, machine=machine))
