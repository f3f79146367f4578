"""conveyor.plot: the figures of `conveyor plot`, from files or from Results in memory.

This is the conveyor_plot package (python/conveyor_plot, which the CLI runs), not a copy of it:

    conveyor.plot.plot(["stream.json"], "stream.svg", title="STREAM")   # files, as the CLI
    conveyor.plot.figure([result.document])                             # a matplotlib Figure
"""

from __future__ import annotations

import os

from conveyor_plot import (OUTPUT_FORMATS, Failure, MissingDependency, UsageError, check_output,
                           draw, plot)
from conveyor_plot.results import from_document, label_all

__all__ = ["plot", "figure", "draw", "UsageError", "Failure", "MissingDependency", "OUTPUT_FORMATS"]


def figure(documents: list, output: str | os.PathLike | None = None, title: str | None = None,
           dpi: float | None = None):
    """Draws result documents (dicts as --json-out writes them, all of one kind): into `output`
    (.png or .svg), returning its path, when given; else returns the matplotlib Figure."""
    if output is not None:
        output = os.fspath(output)
        check_output(output)
    results = label_all([
        from_document(doc, f"{doc.get('command', 'result')} #{i + 1}" if len(documents) > 1
                      else str(doc.get("command", "result")))
        for i, doc in enumerate(documents)
    ])
    try:
        fig = draw(results, title)
    except MissingDependency as e:  # the CLI's advice, plus the package's own way
        raise MissingDependency(f"{e} (or: pip install matplotlib)") from None
    if output is None:
        return fig
    from conveyor_plot import figure as _figure

    _figure.save(fig, output, dpi)
    return output
