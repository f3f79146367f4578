"""What every Conveyor figure shares: the Agg backend, a title naming the command and the machine, a
footnote with the date and version, log axes where values span decades, byte-size tick labels."""

from __future__ import annotations

import contextlib
import math
import os
import textwrap

from .errors import Failure, MissingDependency

try:
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed, and it imports fastest
    import matplotlib.pyplot as plt
    from matplotlib.ticker import (FuncFormatter, LogLocator, MaxNLocator, MultipleLocator,
                                   NullFormatter)
except ImportError as e:  # pragma: no cover - exercised by the CLI test with a bare python
    import sys

    problem = ("is not installed for" if e.name in (None, "matplotlib")
               else f"cannot be imported (no module {e.name}) by")
    raise MissingDependency(
        f"matplotlib {problem} {sys.executable}; "
        "run scripts/setup-deps.sh or set CONVEYOR_PYTHON to a python that has it"
    ) from None

plt.rcParams.update(
    {
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "legend.fontsize": 8,
        "legend.framealpha": 0.9,
        "svg.hashsalt": "conveyor",  # reproducible SVG ids
    }
)

PALETTE = plt.get_cmap("tab10").colors
KERNEL_COLOURS = {"copy": PALETTE[0], "scale": PALETTE[1], "add": PALETTE[2], "triad": PALETTE[3],
                  "dot": PALETTE[4]}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]

DESCRIPTIONS = {
    "stream": "memory bandwidth",
    "probe": "offload cost: bandwidth, latency, crossover",
    "cholesky": "tiled Cholesky on the task runtime",
    "trace": "timeline",
    "sim": "manycore simulator",
    "sim_sweep": "manycore simulator: store-buffer sweep",
    "models": "performance models: task time vs size per device",
    "qr": "tile Householder QR on the task runtime",
    "stencil": "Jacobi 5-point stencil on the task runtime",
}


# tab20 without its greys (grey means "other"): dark shades first, then light ones.
_TAB20 = plt.get_cmap("tab20").colors
DISTINCT = [_TAB20[i] for i in range(0, 20, 2) if i != 14] + [_TAB20[i] for i in range(1, 20, 2) if i != 15]


def colour(i: int):
    return PALETTE[i % len(PALETTE)]


def distinct_colour(i: int):
    """Up to 18 colours that stay apart, for legends longer than tab10."""
    return DISTINCT[i % len(DISTINCT)]


def new_figure(width: float, height: float, nrows: int = 1, ncols: int = 1, **kwargs):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained",
                             squeeze=False, **kwargs)
    return fig, axes


def format_bytes(value: float, _pos=None) -> str:
    """Tick label for a byte count in powers of 1024: 512 B, 4 KiB, 1.5 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:g} {unit}"
    return f"{value:g} B"


def spans_decades(values, decades: float = 2.0) -> bool:
    positive = [v for v in values if v is not None and v > 0]
    return len(positive) == len([v for v in values if v is not None]) and len(positive) > 1 and \
        max(positive) / min(positive) >= 10**decades


def bytes_axis(ax, values, axis: str = "x") -> None:
    """A byte-count axis in powers of two with KiB/MiB labels: log when sizes span decades."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    if spans_decades(values, 1.5):
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
        target.set_major_locator(LogLocator(base=2, numticks=10))
        target.set_minor_formatter(NullFormatter())
    elif values:
        span = max(values) - min(0, min(values))
        step = 2 ** max(0, math.ceil(math.log2(span / 6))) if span > 0 else 1
        target.set_major_locator(MultipleLocator(step))
    target.set_major_formatter(FuncFormatter(format_bytes))
    if axis == "x":
        # "256 KiB" and "1 MiB" side by side ran into each other in a half-width panel: slanted
        # labels, anchored at their end, each stay under their own tick.
        ax.tick_params(axis="x", labelrotation=30)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")


def count_axis(ax, values, axis: str = "x", in_bytes: bool = False) -> None:
    """Sizes or counts: log base 2 when they span decades, labelled as bytes or plain numbers."""
    if in_bytes:
        bytes_axis(ax, values, axis)
        return
    target = ax.xaxis if axis == "x" else ax.yaxis
    if spans_decades(values, 1.0):
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
        target.set_major_locator(LogLocator(base=2, numticks=10))
        target.set_minor_formatter(NullFormatter())
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


def short(value: float) -> str:
    """A bar label: three significant digits, no exponent for ordinary magnitudes."""
    return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def log_if_spans(ax, values, axis: str = "y", decades: float = 2.0) -> None:
    if spans_decades(values, decades):
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")


def integer_axis(ax, values, axis: str = "x") -> None:
    """Thread or node counts: ticks at the measured values; log base 2 when they span 8x or more."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    distinct = sorted(set(values))
    if distinct and distinct[0] > 0 and distinct[-1] / distinct[0] >= 8:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=2)
        target.set_minor_formatter(NullFormatter())
    if len(distinct) <= 16:
        target.set_ticks(distinct)
        target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        target.set_major_locator(MaxNLocator(integer=True))


def legend_outside(ax, handles=None, labels=None, **kwargs) -> None:
    """A legend to the right of the axes, so that it never covers data; two columns when long."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  ncol=1 if len(handles) <= 18 else 2, **kwargs)


def remove_unused(fig, axes, used: int) -> None:
    for ax in list(axes.flat)[used:]:
        fig.delaxes(ax)


def decorate(fig, results: list, title: str | None) -> None:
    """Title (command and machine) above, footnote (date, version, notes) below."""
    first = results[0]
    heading = title or f"conveyor {first.command}: {DESCRIPTIONS.get(first.command, first.command)}"
    machines = []
    for r in results:
        m = r.machine
        if not m:
            continue
        name = m.get("cpu_model") or "unknown CPU"
        details = ", ".join(x for x in (m.get("hostname"), f"{m['cores']} cores" if m.get("cores")
                                         else None) if x)
        entry = f"{name} ({details})" if details else name
        if entry not in machines:
            machines.append(entry)
    lines = [heading]
    if machines:
        lines.append("; ".join(machines))
    fig.suptitle("\n".join(lines), fontsize=11)

    foot = []
    if len(results) > 3:
        # Many runs joined (one per n, say): their names once, then the span of dates and versions.
        dates = sorted(str(r.meta["date"]) for r in results if r.meta.get("date"))
        versions = sorted({r.version for r in results if r.version})
        parts = [", ".join(r.label or os.path.basename(r.path) for r in results)]
        if dates:
            parts.append(dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}")
        if versions:
            parts.append("conveyor " + ", ".join(versions))
        foot.append(" · ".join(parts))
    for r in results if len(results) <= 3 else []:
        parts = [r.label or os.path.basename(r.path)]
        if r.meta.get("date"):
            parts.append(str(r.meta["date"]))
        if r.version:
            parts.append(f"conveyor {r.version}")
        foot.append(" · ".join(parts))
    notes = []
    for r in results:
        for note in r.meta.get("notes") or []:
            if str(note) not in notes:
                notes.append(str(note))
    paragraphs = ["; ".join(foot)] + (["note: " + "; ".join(notes)] if notes else [])
    width = int(fig.get_figwidth() * 17)  # characters of 7-point text across the figure
    wrapped = [line for p in paragraphs for line in textwrap.wrap(p, width=width)]
    fig.supxlabel("\n".join(wrapped[:4]), fontsize=7, color="0.35", x=0.01, ha="left")


def save(fig, output: str, dpi: float | None) -> None:
    """Writes the figure whole or not at all: into a temporary file beside `output`, then renamed
    over it, so that a run killed mid-write never leaves half a figure where the last one was."""
    folder, name = os.path.split(os.path.abspath(output))
    kind = os.path.splitext(name)[1].lstrip(".").lower()  # png or svg (checked by plot())
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        fig.savefig(temporary, format=kind, dpi=dpi or 150,
                    metadata={"Date": None} if kind == "svg" else None)
        os.replace(temporary, output)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise Failure(f"cannot write {output}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
