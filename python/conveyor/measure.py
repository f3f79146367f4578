"""The measurements of the CLI as functions: keyword arguments named as the CLI's options, results as
the same JSON document its --json-out writes, wrapped in a Result."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from . import _core

__all__ = ["Result", "calibration", "devices", "pipeline", "probe", "stream"]

KERNELS = "copy,scale,add,triad,dot"


class Result:
    """One run's result document: `records` are its rows (the `results` of the CLI's JSON), with the
    envelope (machine, build, options, date, notes) in `document`."""

    def __init__(self, document: dict):
        self.document = document

    @property
    def command(self) -> str:
        return self.document.get("command", "")

    @property
    def records(self) -> list:
        return self.document.get("results", [])

    @property
    def notes(self) -> list:
        return self.document.get("notes", [])

    @property
    def options(self) -> dict:
        return self.document.get("options", {})

    @property
    def machine(self) -> dict:
        return self.document.get("machine", {})

    def __repr__(self) -> str:
        return f"<conveyor.Result {self.command}: {len(self.records)} records>"

    def to_json(self, path: str | os.PathLike) -> None:
        """Writes the document as `--json-out` does, for `conveyor plot` or another machine."""
        with open(path, "w", encoding="utf-8") as out:
            json.dump(self.document, out, indent=2)
            out.write("\n")

    def to_pandas(self):
        """The records as a pandas DataFrame, one row per record."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "Result.to_pandas() needs pandas, which this python cannot import "
                "(pip install pandas); the same rows are in Result.records as dicts"
            ) from None
        return pandas.DataFrame.from_records(self.records)

    def plot(self, output: str | os.PathLike | None = None, title: str | None = None,
             dpi: float | None = None):
        """The figure `conveyor plot` draws for this result: written to `output` (.png or .svg) and
        its path returned when given, else returned as a matplotlib Figure (for a notebook)."""
        from . import plot

        return plot.figure([self.document], output=output, title=title, dpi=dpi)


def _load(text: str) -> Result:
    return Result(json.loads(text))


def devices() -> Result:
    """`conveyor devices`: one record per device (id, kind, name, platform, memory_bytes, peak_gbs,
    compute_units, details); the document also has `numa_nodes` and `backends`."""
    return _load(_core.devices_json())


def _list_text(value, what: str) -> str:
    """A CLI list option ("1-8", "1,2,4") from a string, an int or an iterable of ints."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise TypeError(f"{what}: expected an int, a list of ints or a string like '1-8'")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Iterable):
        return ",".join(str(v) for v in value)
    raise TypeError(f"{what}: expected an int, a list of ints or a string like '1-8'")


def _size_text(value, what: str) -> str:
    """A CLI size ("64M", "1GiB") from a string or an int."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"{what}: expected an int or a string with a suffix such as '64M' or '1GiB'")


def stream(*, device: str = "cpu", threads=None, bind: str = "scatter", variant: str = "standard",
           elements=None, size=None, repeats: int = 20, kernels=KERNELS, scalar: float = 3.0,
           allow_small: bool = False, numa: int | None = None, tier: str | None = None,
           no_huge_pages: bool = False) -> Result:
    """`conveyor stream`: STREAM bandwidth (Copy, Scale, Add, Triad, Dot), one record per device,
    variant, thread count and kernel, with the fields of `conveyor stream --json-out`.

    threads: an int, a list of ints or the CLI's text ("1-8", "1,2,4"); default one per core.
    elements, size: ints, or text with the CLI's suffixes ("64M", "1GiB"); default: the STREAM rule.
    kernels: "copy,scale" or ["copy", "scale"]. The other options are the CLI's (`conveyor stream
    --help`). Raises conveyor.UsageError (a ValueError) for what the CLI refuses."""
    if not isinstance(kernels, str):
        kernels = ",".join(kernels)
    return _load(_core.stream_json(
        device=device, threads=_list_text(threads, "threads"), bind=bind, variant=variant,
        elements=_size_text(elements, "elements"), size=_size_text(size, "size"), repeats=repeats,
        kernels=kernels, scalar=scalar, allow_small=allow_small,
        numa=-1 if numa is None else numa, tier=tier or "", no_huge_pages=no_huge_pages))


def _path_text(value, what: str) -> str:
    """A file option: "" (the CLI's default) for None, else the path as text."""
    if value is None:
        return ""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{what}: expected a path (str or os.PathLike) or None")


def probe(device="all", *, repeats: int = 5, quick: bool = False, max_size="256MiB",
          apps: bool = True, staging: bool = True, calibration=None) -> Result:
    """`conveyor probe`: offload cost per device and memory model (seed 004), one record per
    measurement with a `kind` (bandwidth, dispatch, attach, model, app, crossover, and with the CPU
    and not quick: plain_stream, near_read, mover), as `conveyor probe --json-out` writes them.

    device: "cpu", "opencl:0", "cuda:0", a list or comma-separated text of them, or "all".
    max_size: an int or text with the CLI's suffixes ("1MiB"). The other options are the CLI's
    (`conveyor probe --help`; apps=False is --no-apps, staging=False is --no-staging).
    calibration: where the calibration file is written, as the CLI writes it: None (default) for
    the CLI's default path ($XDG_CACHE_HOME/conveyor/calibration.json, else
    ~/.cache/conveyor/calibration.json), a path for that file, False for none (--no-calibration).
    `result.document["calibration"]` is the path written, or None.

    Raises conveyor.UsageError (a ValueError) for what the CLI refuses, conveyor.ValidationError
    when a device's application result does not match the CPU's (no calibration is written)."""
    if not isinstance(device, str):
        device = ",".join(device)
    no_calibration = calibration is False
    if calibration is True or no_calibration:
        calibration = None
    return _load(_core.probe_json(
        device=device, repeats=repeats, quick=quick, max_size=_size_text(max_size, "max_size"),
        apps=apps, staging=staging, calibration=_path_text(calibration, "calibration"),
        no_calibration=no_calibration))


def calibration(path=None) -> dict:
    """The calibration file `conveyor probe` wrote (`conveyor probe --show-calibration --json`), as
    a dict: schema, date, machine, entries (per device and memory model: td_us, tm_us, bw_gbs,
    links, apps) and staging. path: None for the CLI's default path, else that file. Raises
    conveyor.UsageError when it is missing, not a calibration, or measured on another machine."""
    return json.loads(_core.calibration_json(_path_text(path, "path")))


def pipeline(mover: str = "thread", *, threads=None, kernels=None, variant: str | None = None,
             bind: str = "scatter", elements=None, size=None, repeats: int | None = None,
             depth: int = 4, block="1MiB", strategy: str = "auto", calibrate: bool = False,
             calibration=None, copy_threads: int = 1, no_overlap: bool = False) -> Result:
    """`conveyor stream --pipeline MOVER`: staged streaming (seed 000), CPU-only against a mover
    staging blocks into a per-thread ring, one record per thread count, kernel and pipeline
    ("none" for CPU-only), with the fields of `conveyor stream --pipeline ... --json-out`.

    mover: thread, prefetch, dsa, opencl[:N] or cuda[:N] (the value of --pipeline).
    threads: an int, a list of ints or the CLI's text ("1-2"); default 1.
    kernels: "scale,triad" or a list; default scale, triad, dot. variant: default tuned.
    elements, size, block: ints, or text with the CLI's suffixes; default 32M elements, 1MiB blocks.
    repeats: default 10. calibration: the probe's file strategy auto predicts from (None: the
    CLI's default path). The other options are the CLI's (`conveyor stream --help`).
    Raises conveyor.UsageError (a ValueError) for what the CLI refuses."""
    if kernels is not None and not isinstance(kernels, str):
        kernels = ",".join(kernels)
    return _load(_core.pipeline_json(
        mover=mover, depth=depth, block=_size_text(block, "block"), strategy=strategy,
        copy_threads=copy_threads, no_overlap=no_overlap, calibrate=calibrate,
        calibration=_path_text(calibration, "calibration"), threads=_list_text(threads, "threads"),
        bind=bind, variant=variant, elements=_size_text(elements, "elements"),
        size=_size_text(size, "size"), kernels=kernels, repeats=repeats))
