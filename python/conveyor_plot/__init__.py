"""Figures from Conveyor's JSON results, drawn with matplotlib (Agg backend).

Used by `conveyor plot RESULT.json -o FIG.png`; usable on its own:

    python3 -m conveyor_plot stream.json -o stream.png --title "STREAM on node 3"

or from Python:

    import conveyor_plot
    conveyor_plot.plot(["probe.json"], "probe.svg")

One module per result kind (stream, probe, cholesky, qr, stencil, trace, sim, models) has
`draw(results) -> Figure`.
"""

from __future__ import annotations

import importlib
import os

from .errors import Failure, MissingDependency, UsageError
from .results import PLOTTABLE, load_all

__all__ = ["plot", "draw", "UsageError", "Failure", "MissingDependency", "OUTPUT_FORMATS"]

OUTPUT_FORMATS = (".png", ".svg")


def check_output(output: str) -> None:
    if os.path.splitext(output)[1].lower() not in OUTPUT_FORMATS:
        raise UsageError(f"output '{output}' must end in .png or .svg")


def plot(paths: list, output: str, title: str | None = None, dpi: float | None = None) -> str:
    """Draws the results in `paths` (all of one kind) into `output`; returns the kind drawn.

    Raises UsageError for bad input, MissingDependency without matplotlib, Failure when the file
    cannot be written."""
    check_output(output)
    if dpi is not None and not dpi > 0:
        raise UsageError(f"--dpi must be positive (got {dpi:g})")
    results = load_all(paths)  # before importing matplotlib: bad input fails fast
    from . import figure

    figure.save(draw(results, title), output, dpi)
    return results[0].command


def draw(results: list, title: str | None = None):
    """The matplotlib Figure of loaded results (results.load_all, or results.from_document for
    documents in memory, as conveyor.Result.plot does), titled and footnoted, not saved."""
    from . import figure

    module = importlib.import_module(f".{PLOTTABLE[results[0].command]}", __name__)
    fig = module.draw(results)
    figure.decorate(fig, results, title)
    return fig
