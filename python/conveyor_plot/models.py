"""conveyor models: measured task time against task size, one panel per codelet, one colour per
device; the points are each footprint's median (bars: deviation), the lines the fitted
a * bytes^b + c the scheduler uses for sizes it has not measured."""

from __future__ import annotations

import math

from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text


def _points(results):
    by_codelet = {}
    for row, where, _ in tagged_rows(results):
        codelet, device = text(row, "codelet"), text(row, "device")
        point = (number(row, "bytes", where), number(row, "median_s", where),
                 number(row, "deviation_s", where, optional=True) or 0.0)
        fit = None
        if row.get("fit_a") is not None:
            fit = (number(row, "fit_a", where), number(row, "fit_b", where), number(row, "fit_c_s", where))
        entry = by_codelet.setdefault(codelet, {}).setdefault(device, {"points": [], "fit": None})
        entry["points"].append(point)
        entry["fit"] = fit or entry["fit"]
    if not by_codelet:
        raise UsageError("no models to plot (run a model scheduler first, then conveyor models --json)")
    return by_codelet


def draw(results):
    by_codelet = _points(results)
    codelets = sorted(by_codelet)
    cols = min(len(codelets), 2)
    rows = math.ceil(len(codelets) / cols)
    fig, axes = figure.new_figure(5.2 * cols, 3.6 * rows, rows, cols)
    devices = sorted({d for c in by_codelet.values() for d in c})
    colours = {d: figure.colour(i) for i, d in enumerate(devices)}
    for i, codelet in enumerate(codelets):
        ax = axes[i // cols][i % cols]
        for device, entry in sorted(by_codelet[codelet].items()):
            pts = sorted(entry["points"])
            xs = [p[0] for p in pts]
            ax.errorbar(xs, [p[1] * 1e3 for p in pts], yerr=[p[2] * 1e3 for p in pts], fmt="o",
                        ms=4, color=colours[device], label=device, capsize=2)
            if entry["fit"] and len(xs) > 0:
                a, b, c = entry["fit"]
                lo, hi = min(xs) / 2, max(xs) * 2
                grid = [lo * (hi / lo) ** (k / 40) for k in range(41)]
                ax.plot(grid, [(a * max(x, 1.0) ** b + c) * 1e3 for x in grid], "-", lw=1,
                        color=colours[device], alpha=0.7)
        # Log in both: sizes and times span decades. Ticks in powers of 4 with KiB/MiB labels.
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(LogLocator(base=4, numticks=8))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(figure.format_bytes))
        ax.set_yscale("log")
        ax.set_xlabel("task buffers (bytes)")
        ax.set_ylabel("time per task (ms)")
        ax.set_title(codelet)
        ax.legend(fontsize=7)
    figure.remove_unused(fig, axes, len(codelets))
    return fig
