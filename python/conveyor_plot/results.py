"""Reading Conveyor JSON results and Chrome traces, with one clear message for each bad input.

Only the standard library is used here, so that bad input is reported before matplotlib is imported.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

from .errors import UsageError

# Result kinds that have a figure, with the module that draws them.
PLOTTABLE = {
    "stream": "stream",
    "probe": "probe",
    "cholesky": "cholesky",
    "trace": "trace",
    "sim": "sim",
    "sim_sweep": "sim",
    "models": "models",
    "qr": "qr",
    "stencil": "stencil",
}


@dataclass
class Result:
    """One input file: its kind, its rows (trace events for a trace) and the run's metadata."""

    path: str
    command: str
    rows: list
    meta: dict = field(default_factory=dict)
    label: str = ""  # set by load_all when several files are drawn together

    @property
    def machine(self) -> dict:
        machine = self.meta.get("machine")
        return machine if isinstance(machine, dict) else {}

    @property
    def version(self) -> str:
        build = self.meta.get("build") if isinstance(self.meta.get("build"), dict) else {}
        return str(self.meta.get("conveyor") or build.get("version") or "")


def classify(doc) -> str:
    """The result kind of a parsed document, or UsageError when it is not something Conveyor wrote."""
    if isinstance(doc, list) or (isinstance(doc, dict) and "traceEvents" in doc):
        return "trace"
    if not isinstance(doc, dict) or "conveyor" not in doc or "command" not in doc:
        raise UsageError('not a Conveyor result (no "conveyor" and "command" keys) nor a Chrome trace')
    command = doc["command"]
    if not isinstance(command, str) or command not in PLOTTABLE:
        raise UsageError(f"cannot plot '{command}' results (plottable: {', '.join(sorted(PLOTTABLE))})")
    return command


def load(path: str) -> Result:
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: not JSON ({e})") from None
    return from_document(doc, path)


def from_document(doc, path: str) -> Result:
    """A parsed document (from a file, or a conveyor.Result in memory) as a Result; `path` names it
    in messages and labels."""
    try:
        command = classify(doc)
    except UsageError as e:
        raise UsageError(f"{path}: {e}") from None
    if command == "trace":
        events = doc if isinstance(doc, list) else doc.get("traceEvents")
        if not isinstance(events, list):
            raise UsageError(f'{path}: "traceEvents" is not a list')
        meta = {k: v for k, v in doc.items() if k != "traceEvents"} if isinstance(doc, dict) else {}
        return Result(path, command, [e for e in events if isinstance(e, dict)], meta)
    rows = doc.get("results")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise UsageError(f'{path}: "results" is not a list of objects')
    if not rows:
        raise UsageError(f"{path}: the result has no rows to plot")
    meta = {k: v for k, v in doc.items() if k != "results"}
    return Result(path, command, rows, meta)


def load_all(paths: list) -> list:
    """Loads every file; all must be of one kind. Labels each when there are several."""
    return label_all([load(p) for p in paths])


def label_all(results: list) -> list:
    """Checks that the results are all of one kind; labels each when there are several."""
    kinds = {PLOTTABLE[r.command] for r in results}
    if len(kinds) > 1:
        listing = ", ".join(f"{r.path}: {r.command}" for r in results)
        raise UsageError(f"cannot draw different result kinds in one figure ({listing})")
    if len(results) > 1:
        hosts = [r.machine.get("hostname", "") for r in results]
        stems = [os.path.splitext(os.path.basename(r.path))[0] for r in results]
        # Hostnames tell machines apart; file names tell apart runs on one machine.
        names = hosts if all(hosts) and len(set(hosts)) == len(hosts) else stems
        if len(set(names)) < len(names):
            names = [f"{n} #{i + 1}" for i, n in enumerate(names)]
        for result, name in zip(results, names):
            result.label = name
    return results


def number(row: dict, key: str, where: str, optional: bool = False):
    """row[key] as a float; None when optional and absent or null; UsageError naming the row otherwise."""
    value = row.get(key)
    if value is None:
        if optional:
            return None
        raise UsageError(f"{where}: row has no '{key}'")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UsageError(f"{where}: '{key}' is not a finite number ({value!r})")
    return float(value)


def text(row: dict, key: str, default: str = "") -> str:
    value = row.get(key)
    return default if value is None else str(value)


def tagged_rows(results: list) -> list:
    """Every row of every result as (row, where, source label); `where` names the file and row."""
    return [
        (row, f"{r.path} row {i + 1}", r.label)
        for r in results
        for i, row in enumerate(r.rows)
    ]
