"""conveyor probe: up to four panels, each drawn only when the result has rows for it:
bandwidth vs transfer size, the attach-time fit behind Tm, Td/Tm per device, and the offload crossover
per application."""

from __future__ import annotations

import math
from collections import defaultdict

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text


# What "size" counts in each application's rows.
APP_SIZE_UNITS = {"matmul": "n", "md5": "bytes"}


def _key(row, source, *keys):
    """A label from the row's identifying keys (and the source file when several are drawn)."""
    parts = [text(row, k) for k in keys if text(row, k)]
    return " ".join(([source] if source else []) + parts)


def _by_kind(results):
    kinds = defaultdict(list)
    for row, where, source in tagged_rows(results):
        kind = row.get("kind")
        if kind is None:
            raise UsageError(f"{where}: probe row has no 'kind'")
        kinds[str(kind)].append((row, where, source))
    return kinds


def _bandwidth(ax, rows):
    lines = defaultdict(list)
    for row, where, source in rows:
        lines[_key(row, source, "device", "model", "direction")].append(
            (number(row, "bytes", where), number(row, "best_gbs", where),
             number(row, "median_gbs", where, optional=True)))
    # tab10 repeats after ten lines, and a machine with one OpenCL device already has 15 (four
    # memory models x three directions, plus the host): past ten, colours that stay apart.
    pick = figure.colour if len(lines) <= 10 else figure.distinct_colour
    for i, (label, pts) in enumerate(sorted(lines.items())):
        pts.sort()
        c = pick(i)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=4, color=c, label=label)
        medians = [(p[0], p[2]) for p in pts if p[2] is not None]
        if medians:
            ax.plot(*zip(*medians), linestyle="none", marker="_", markersize=8, color=c, alpha=0.6)
    sizes = [p[0] for pts in lines.values() for p in pts]
    figure.bytes_axis(ax, sizes)
    figure.log_if_spans(ax, [p[1] for pts in lines.values() for p in pts], "y", decades=1.0)
    ax.set_title("Transfer bandwidth vs size (line: best, tick: median)")
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("bandwidth (GB/s, 1e9 B/s)")
    figure.legend_outside(ax)


def _fit(ax, attach, models):
    points = defaultdict(list)
    for row, where, source in attach:
        points[_key(row, source, "device", "model")].append(
            (number(row, "bytes", where), number(row, "time_us", where)))
    fits = {_key(row, source, "device", "model"): (row, where) for row, where, source in models}
    sizes = [b for pts in points.values() for b, _ in pts]
    lo, hi = min(sizes), max(sizes)
    handles, labels = [], []
    pick = figure.colour if len(points) <= 10 else figure.distinct_colour
    for i, label in enumerate(sorted(points)):
        c = pick(i)
        pts = sorted(points[label])
        parts = [ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none", marker="o",
                         markersize=4, color=c)[0]]
        text_parts = [label]
        if label in fits:
            row, where = fits[label]
            icpt = number(row, "fit_intercept_us", where, optional=True)
            slope = number(row, "fit_slope_us_per_byte", where, optional=True)
            td = number(row, "td_us", where, optional=True)
            rms = number(row, "rms_residual_us", where, optional=True)
            if icpt is not None and slope is not None:
                xs = [lo + (hi - lo) * k / 50 for k in range(51)]
                parts.append(ax.plot(xs, [icpt + slope * x for x in xs], color=c, linewidth=1.2)[0])
                text_parts.append(f"Td+Tm {icpt:.3g} us" + (f" (rms {rms:.2g})" if rms is not None else ""))
            if td is not None:
                ax.axhline(td, color=c, linestyle="--", linewidth=1)
                text_parts.append(f"Td {td:.3g} us")
        handles.append(tuple(parts))
        labels.append(": ".join(text_parts[:1]) + (": " + ", ".join(text_parts[1:]) if len(text_parts) > 1
                                                     else ""))
    ax.set_title("Attach time: points measured, line fitted, dashed Td")
    ax.set_xlabel("bytes touched by the kernel")
    ax.set_ylabel("time (us)")
    figure.bytes_axis(ax, sizes)
    figure.log_if_spans(ax, [t for pts in points.values() for _, t in pts], "y")
    if ax.get_yscale() == "linear":
        ax.set_ylim(bottom=0)
    figure.legend_outside(ax, handles, labels, fontsize=7)


def _latencies(ax, models, dispatch):
    """Td and Tm per device/model, enqueue and round trip per device, as horizontal bars: one row of
    bars per group, its name on the y axis. Names on a vertical chart's x axis ran into each other as
    soon as a machine had a few devices and memory models (cpu host, opencl:0 pageable/pinned/mapped,
    dispatch rows); on the y axis each gets its own line whatever their number and length."""
    groups = []  # (label, [(bar name, value)])
    for row, where, source in models:
        label = _key(row, source, "device", "model")
        bw = number(row, "bw_gbs", where, optional=True)
        if bw is not None:
            label += f" (BW {bw:.3g} GB/s)"
        groups.append((label, [("Td", number(row, "td_us", where, optional=True)),
                               ("Tm", number(row, "tm_us", where, optional=True))]))
    for row, where, source in dispatch:
        groups.append((_key(row, source, "device") + " dispatch",
                       [("enqueue", number(row, "enqueue_us", where, optional=True)),
                        ("round trip", number(row, "roundtrip_us", where, optional=True))]))
    names = []
    for _, bars in groups:
        for n, _ in bars:
            if n not in names:
                names.append(n)
    height = 0.8 / 2
    values = []
    labelled = set()
    for j, (label, bars) in enumerate(groups):
        y0 = len(groups) - 1 - j  # first group on top, as read
        for slot, (n, v) in enumerate(bars):
            if v is None:
                continue
            y = y0 + 0.4 - height * (slot + 0.5)
            # A negative Tm (intercept below Td) is drawn as zero and labelled with its value.
            ax.barh(y, max(v, 0.0), height * 0.9, color=figure.colour(names.index(n)),
                    label=None if n in labelled else n)
            labelled.add(n)
            ax.annotate(figure.short(v), (max(v, 0.0), y), xytext=(3, 0), textcoords="offset points",
                        ha="left", va="center", fontsize=7)
            values.append(v)
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels([g[0] for g in reversed(groups)], fontsize=7)
    ax.set_ylim(-0.6, len(groups) - 0.4)
    ax.grid(axis="y", visible=False)
    positive = [v for v in values if v > 0]
    figure.log_if_spans(ax, positive, "x")
    if ax.get_xscale() == "linear":
        ax.set_xlim(left=0)
    ax.margins(x=0.15)  # room for the value labels right of the longest bar
    ax.set_title("Dispatch time Td and attach time Tm")
    ax.set_xlabel("time (us)")
    figure.legend_outside(ax)


def _crossover(ax, app, rows, crossings):
    lines = defaultdict(list)
    for row, where, source in rows:
        lines[_key(row, source, "device")].append((number(row, "size", where), number(row, "time_s", where)))
    devices = sorted(lines, key=lambda d: (not d.endswith("cpu"), d))  # CPU first: it is the reference
    for i, device in enumerate(devices):
        pts = sorted(lines[device])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=4, color=figure.colour(i),
                linewidth=2.2 if device.endswith("cpu") else 1.4, label=device)
    missing = []
    for row, where, source in crossings:
        device = _key(row, source, "device")
        size = number(row, "size", where, optional=True)
        c = figure.colour(devices.index(device)) if device in devices else "0.3"
        if size is None:
            missing.append(device)
            continue
        ax.axvline(size, color=c, linestyle=":", linewidth=1.2)
        shown = figure.format_bytes(size) if APP_SIZE_UNITS.get(app) == "bytes" else f"{size:g}"
        ax.annotate(f"{device} wins from {shown}", (size, 0.98), xycoords=("data", "axes fraction"),
                    rotation=90, ha="right", va="top", fontsize=7, color=c)
    if missing:
        ax.text(0.99, 0.02, "no crossover in range: " + ", ".join(missing), transform=ax.transAxes,
                ha="right", va="bottom", fontsize=7, color="0.3")
    unit = APP_SIZE_UNITS.get(app, "")
    figure.count_axis(ax, [p[0] for pts in lines.values() for p in pts], "x", in_bytes=unit == "bytes")
    figure.log_if_spans(ax, [p[1] for pts in lines.values() for p in pts], "y")
    ax.set_title(f"Offload crossover: {app}")
    ax.set_xlabel(f"{app} problem size" + (f" ({unit})" if unit else ""))
    ax.set_ylabel("time (s)")
    figure.legend_outside(ax)


def draw(results):
    kinds = _by_kind(results)
    panels = []
    if kinds.get("bandwidth"):
        panels.append(lambda ax: _bandwidth(ax, kinds["bandwidth"]))
    if kinds.get("attach"):
        panels.append(lambda ax: _fit(ax, kinds["attach"], kinds.get("model", [])))
    if kinds.get("model") or kinds.get("dispatch"):
        panels.append(lambda ax: _latencies(ax, kinds.get("model", []), kinds.get("dispatch", [])))
    apps = defaultdict(list)
    for entry in kinds.get("app", []):
        apps[text(entry[0], "app", "app")].append(entry)
    for app in sorted(apps):
        crossings = [e for e in kinds.get("crossover", []) if text(e[0], "app", "app") == app]
        panels.append(lambda ax, app=app, crossings=crossings: _crossover(ax, app, apps[app], crossings))
    if not panels:
        known = "bandwidth, dispatch, attach, model, app, crossover"
        raise UsageError(f"no probe rows of a kind this can draw (kinds: {known}; "
                         f"found: {', '.join(sorted(kinds)) or 'none'})")
    ncols = 1 if len(panels) == 1 else 2
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = figure.new_figure(7.5 * ncols, 4.2 * nrows, nrows, ncols)
    for panel, ax in zip(panels, axes.flat):
        panel(ax)
    figure.remove_unused(fig, axes, len(panels))
    return fig
