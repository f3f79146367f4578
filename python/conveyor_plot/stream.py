"""conveyor stream: bandwidth per kernel vs threads (or bars at one thread count), and the speedup of
pipelined runs over CPU-only ones."""

from __future__ import annotations

from collections import defaultdict

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text

KERNEL_ORDER = ["copy", "scale", "add", "triad", "dot"]
# Keys that tell runs apart besides the kernel: only those that vary are named in labels.
SERIES_KEYS = ["source", "device", "variant", "binding", "pipeline"]
HATCHES = ["", "//", "..", "xx", "\\\\"]


def _points(results):
    points = []
    for row, where, source in tagged_rows(results):
        points.append({
            "source": source,
            "device": text(row, "device", "cpu"),
            "variant": text(row, "variant"),
            "binding": text(row, "binding"),
            "pipeline": text(row, "pipeline", "none") if "pipeline" in row else "",
            "kernel": text(row, "kernel") or "?",
            "threads": number(row, "threads", where),
            "best": number(row, "best_gbs", where),
            "median": number(row, "median_gbs", where, optional=True),
            "worst": number(row, "worst_gbs", where, optional=True),
            "peak_pct": number(row, "percent_of_peak", where, optional=True),
            "speedup": number(row, "speedup", where, optional=True),
        })
    if not points:
        raise UsageError("no stream rows to plot")
    return points


def _series_namer(points):
    """Names a row's series by the keys that vary across rows; returns (name, names in order)."""
    varying = [k for k in SERIES_KEYS if len({p[k] for p in points}) > 1]

    def part(p, k):
        if k != "pipeline":
            return p[k]
        return "no pipeline" if p[k] in ("", "none") else f"{p[k]} pipeline"

    def name(p):
        return " ".join(part(p, k) for k in varying)

    order = []
    for p in points:
        if name(p) not in order:
            order.append(name(p))
    return name, order


def _kernels(points):
    present = {p["kernel"] for p in points}
    return [k for k in KERNEL_ORDER if k in present] + sorted(present - set(KERNEL_ORDER))


def _kernel_colour(kernel, kernels):
    return figure.KERNEL_COLOURS.get(kernel) or figure.colour(len(KERNEL_ORDER) + kernels.index(kernel))


def _peaks(points):
    """Theoretical peak per device, implied by best_gbs and percent_of_peak where a row has both."""
    implied = defaultdict(list)
    for p in points:
        if p["peak_pct"]:
            implied[p["device"]].append(p["best"] * 100.0 / p["peak_pct"])
    return {d: sorted(v)[len(v) // 2] for d, v in implied.items()}


def _draw_peaks(ax, points):
    top = max(p["best"] for p in points)
    off_scale = []
    for device, peak in sorted(_peaks(points).items()):
        if peak <= 2.5 * top:
            ax.axhline(peak, color="0.4", linestyle=":", linewidth=1)
            ax.annotate(f"peak {device}: {peak:.1f} GB/s", (0.01, peak), xycoords=("axes fraction", "data"),
                        xytext=(0, -2), textcoords="offset points", va="top", fontsize=7, color="0.3")
            ax.set_ylim(top=max(ax.get_ylim()[1], peak * 1.05))
        else:
            off_scale.append(f"{device} {peak:.0f} GB/s")
    if off_scale:
        ax.text(0.99, 0.01, "theoretical peak (off scale): " + ", ".join(off_scale), transform=ax.transAxes,
                ha="right", va="bottom", fontsize=7, color="0.3")


def _lines(ax, points, value, kernels, name, series, with_stats):
    """One line per (series, kernel) against threads; `series` fixes each series' marker and style."""
    groups = defaultdict(list)
    for p in points:
        if value(p) is not None:
            groups[(name(p), p["kernel"])].append(p)
    threads = [p["threads"] for p in points]
    log_x = min(threads) > 0 and max(threads) / min(threads) >= 8  # as figure.integer_axis decides
    x_span = (max(threads) - min(threads)) or 1.0
    ordered = sorted(groups.items(), key=lambda kv: (series.index(kv[0][0]), kernels.index(kv[0][1])))
    for j, ((s, kernel), group) in enumerate(ordered):
        group.sort(key=lambda p: p["threads"])
        # The spread marks of all kernels sat on one vertical line per thread count, each hiding the
        # others: each line's marks are nudged sideways (a few %, also on a log axis) in legend order.
        shift = 0.025 * (j - (len(ordered) - 1) / 2)
        nudge = (lambda t, f=1 + shift: t * f) if log_x else (lambda t, d=shift * x_span: t + d)
        i = series.index(s)
        c = _kernel_colour(kernel, kernels)
        label = f"{kernel} {s}".strip()
        x = [p["threads"] for p in group]
        ax.plot(x, [value(p) for p in group], color=c, marker=figure.MARKERS[i % len(figure.MARKERS)],
                linestyle=figure.LINESTYLES[i % len(figure.LINESTYLES)], label=label, markersize=5)
        if with_stats:
            medians = [(p["threads"], p["median"]) for p in group if p["median"] is not None]
            if medians:
                ax.plot([nudge(t) for t, _ in medians], [m for _, m in medians], linestyle="none",
                        marker="_", markersize=9, color=c, alpha=0.6)
            ranges = [p for p in group if p["worst"] is not None]
            if ranges:
                ax.vlines([nudge(p["threads"]) for p in ranges], [p["worst"] for p in ranges],
                          [p["best"] for p in ranges], color=c, alpha=0.35, linewidth=2)


def _best(p):
    return p["best"]


def _speedup(p):
    return p["speedup"]


def _stat_legend_handles():
    return [Line2D([], [], color="0.3", marker="o", linestyle="none", label="best"),
            Line2D([], [], color="0.3", marker="_", markersize=9, linestyle="none", alpha=0.6,
                   label="median"),
            Line2D([], [], color="0.3", alpha=0.35, linewidth=2, label="worst to best")]


def _bars(ax, points, value, kernels, name, series, with_stats):
    """Bars per kernel, one per series (told apart by hatching, as the lines are by style)."""
    shown = [s for s in series if any(name(p) == s and value(p) is not None for p in points)]
    width = 0.8 / max(len(shown), 1)
    for slot, s in enumerate(shown):
        i = series.index(s)
        for j, kernel in enumerate(kernels):
            match = [p for p in points if name(p) == s and p["kernel"] == kernel and value(p) is not None]
            if not match:
                continue
            p = max(match, key=value)
            x = j - 0.4 + width * (slot + 0.5)
            c = _kernel_colour(kernel, kernels)
            ax.bar(x, value(p), width * 0.92, color=c, alpha=0.85, edgecolor="white", hatch=HATCHES[i % 5])
            if with_stats and p["worst"] is not None:
                ax.vlines(x, p["worst"], p["best"], color="0.15", linewidth=1)
            if with_stats and p["median"] is not None:
                ax.plot(x, p["median"], marker="_", markersize=10, color="0.15")
            ax.annotate(figure.short(value(p)), (x, value(p)), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels)
    ax.set_xlim(-0.6, len(kernels) - 0.4)
    ax.margins(y=0.12)
    if len(shown) > 1:
        handles = [Patch(facecolor="0.7", edgecolor="white", hatch=HATCHES[series.index(s) % 5], label=s)
                   for s in shown]
        figure.legend_outside(ax, handles, [h.get_label() for h in handles])


def _pipelined(p):
    return p["speedup"] is not None and p["pipeline"] not in ("", "none")


def draw(results):
    points = _points(results)
    kernels = _kernels(points)
    name, series = _series_namer(points)
    threads = sorted({p["threads"] for p in points})
    sweep = len(threads) > 1
    piped = [p for p in points if _pipelined(p)]
    # The speedup panel sits under the bandwidth panel, on the same thread axis.
    wide = sweep and len(series) * len(kernels) > 18  # the legend takes two columns
    fig, axes = figure.new_figure(11.0 if wide else 8.0, 8.2 if piped else 4.6, 2 if piped else 1, 1,
                                  sharex=sweep)
    ax = axes[0][0]
    where = "vs threads" if sweep else f"at {threads[0]:g} thread{'s' if threads[0] != 1 else ''}"
    ax.set_title(f"Bandwidth {where} (best of repeats)")
    ax.set_ylabel("bandwidth (GB/s, 1 GB/s = 1e9 B/s)")
    if sweep:
        _lines(ax, points, _best, kernels, name, series, with_stats=True)
        figure.integer_axis(ax, threads)
        ax.set_xlabel("threads")
        ax.set_ylim(bottom=0)
        handles, labels = ax.get_legend_handles_labels()
        extra = _stat_legend_handles()
        figure.legend_outside(ax, handles + extra, labels + [h.get_label() for h in extra])
    else:
        _bars(ax, points, _best, kernels, name, series, with_stats=True)
        ax.set_xlabel("kernel (bar: best; tick: median; line: worst to best)")
    _draw_peaks(ax, points)
    if piped:
        sx = axes[1][0]
        sx.set_title("Speedup of each pipeline over CPU-only")
        sx.set_ylabel("speedup (x)")
        sx.axhline(1.0, color="0.3", linewidth=1)
        if sweep:
            _lines(sx, piped, _speedup, kernels, name, series, with_stats=False)
            ax.set_xlabel("")
            sx.set_xlabel("threads")
            figure.legend_outside(sx)
        else:
            _bars(sx, piped, _speedup, kernels, name, series, with_stats=False)
            sx.set_xlabel("kernel")
    return fig
