"""What the qr and stencil figures share: a rate (GFLOP/s, GB/s) against the size or setting that
varies across the rows (n, else sweeps, block...), one line per configuration, and the bytes copied
between host and devices when a run made copies. Rows of several files from one machine are one
data set (runs at several n are separate commands: `conveyor plot a.json b.json` joins them); files
from different machines are told apart by hostname. With nothing varying, bars per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text


@dataclass
class Spec:
    kind: str  # the command, for messages
    rate_key: str  # e.g. "gflops"
    rate_label: str  # axis label
    x_keys: list  # candidates for the x axis, in order of preference
    series_keys: list  # keys that tell configurations apart (besides the host)
    names: dict  # axis labels of the x keys


def _hosts(results):
    hosts = [r.machine.get("hostname", "") for r in results]
    return hosts if len(set(hosts)) > 1 else [""] * len(results)


def _points(results, spec: Spec):
    hosts = _hosts(results)
    host_of = {id(r): h for r, h in zip(results, hosts)}
    points = []
    rows = tagged_rows(results)
    owners = [r for r in results for _ in r.rows]
    for (row, where, _), owner in zip(rows, owners):
        p = {"host": host_of[id(owner)], "rate": number(row, spec.rate_key, where)}
        for key in spec.x_keys:
            p[key] = number(row, key, where, optional=True)
        for key in spec.series_keys:
            if key not in spec.x_keys:  # those are numbers, above
                p[key] = text(row, key)
        time_s = number(row, "time_s", where, optional=True)
        median_s = number(row, "median_time_s", where, optional=True)
        repeat = number(row, "repeat", where, optional=True)
        p["median"] = (p["rate"] * time_s / median_s
                       if time_s and median_s and (repeat or 1) > 1 else None)
        copied = number(row, "total_bytes", where, optional=True)
        p["copied_mb"] = copied / 1e6 if copied is not None else None
        points.append(p)
    if not points:
        raise UsageError(f"no {spec.kind} rows to plot")
    return points


def _show(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _varies(points, key):
    return len({p[key] for p in points}) > 1


def draw(results, spec: Spec):
    points = _points(results, spec)
    x_key = next((k for k in spec.x_keys if _varies(points, k)
                  and all(p[k] is not None for p in points)), None)
    keys = ["host"] + [k for k in spec.series_keys if k != x_key]
    # A key that varies but follows from those named before it (the scheduler chosen per device)
    # would only lengthen the labels.
    varying = []
    for k in keys:
        values = {}
        if _varies(points, k) and any(values.setdefault(tuple(p[v] for v in varying), p[k]) != p[k]
                                      for p in points):
            varying.append(k)
    # What all rows share goes into the panel title; the x candidates not on the axis that vary
    # within a line (block chosen per n) label its points.
    every_key = spec.x_keys + [k for k in spec.series_keys if k not in spec.x_keys]
    common = [f"{k}={_show(points[0][k])}"
              for k in every_key
              if k != x_key and k != "host" and points[0][k] not in (None, "")
              and not _varies(points, k)]
    marks = [k for k in spec.x_keys
             if k != x_key and k not in spec.series_keys and _varies(points, k)]

    def series(p):
        return " ".join(p[k] if k in ("host", "devices", "precision") else f"{k}={_show(p[k])}"
                        for k in varying) or spec.kind

    order = []
    for p in points:
        if series(p) not in order:
            order.append(series(p))
    with_copies = any(p["copied_mb"] for p in points)
    title = f"{spec.names.get(spec.rate_key, spec.rate_key)}" + \
        (f" ({', '.join(common)})" if common else "")
    if x_key is None:
        return _bars(points, order, series, with_copies, spec, title)

    fig, axes = figure.new_figure(10.5 if with_copies else 7.5, 4.2, 1, 2 if with_copies else 1)
    ax = axes[0][0]
    for i, name in enumerate(order):
        mine = sorted((p for p in points if series(p) == name), key=lambda p: p[x_key])
        xs = [p[x_key] for p in mine]
        style = dict(color=figure.colour(i), marker=figure.MARKERS[i % len(figure.MARKERS)],
                     linestyle=figure.LINESTYLES[(i // 10) % len(figure.LINESTYLES)])
        ax.plot(xs, [p["rate"] for p in mine], label=name, **style)
        medians = [(p[x_key], p["median"]) for p in mine if p["median"] is not None]
        if medians:
            ax.plot(*zip(*medians), linestyle="none", marker="_", markersize=9, color=style["color"],
                    alpha=0.5)
        for p in mine:
            label = " ".join(f"{k[0]}{p[k]:g}" for k in marks if p[k] is not None)
            if label:
                ax.annotate(label, (p[x_key], p["rate"]), xytext=(0, 5), textcoords="offset points",
                            ha="center", fontsize=6, color="0.35")
        if with_copies:
            axes[0][1].plot(xs, [p["copied_mb"] or 0.0 for p in mine], label=name, **style)
    xs = [p[x_key] for p in points]
    for a in axes[0]:
        figure.integer_axis(a, xs)
        a.set_xlabel(spec.names.get(x_key, x_key))
    # From zero, with room above the top point for its label.
    ax.set_ylim(0, 1.12 * max(max(p["rate"], p["median"] or 0.0) for p in points))
    ax.set_ylabel(spec.rate_label)
    ax.set_title(title)
    if any(p["median"] is not None for p in points):
        ax.plot([], [], linestyle="none", marker="_", color="0.5", label="median of the repeats")
    if with_copies:
        cx = axes[0][1]
        cx.set_ylim(0, 1.08 * max(p["copied_mb"] or 0.0 for p in points))
        cx.set_ylabel("MB copied (1e6 bytes)")
        cx.set_title("Copies between host and devices")
        figure.legend_outside(cx, *ax.get_legend_handles_labels())
    else:
        figure.legend_outside(ax)
    return fig


def _bars(points, order, series, with_copies, spec: Spec, title):
    """One run per configuration: horizontal bars, as the cholesky figure draws them."""
    height = max(1.4 + 0.38 * len(points), 3.2)
    fig, axes = figure.new_figure(10.5 if with_copies else 7.5, height, 1, 2 if with_copies else 1,
                                  sharey=True)
    ax = axes[0][0]
    ys = list(range(len(points)))[::-1]
    for y, p in zip(ys, points):
        ax.barh(y, p["rate"], 0.7, color=figure.colour(order.index(series(p))))
        ax.annotate(figure.short(p["rate"]), (p["rate"], y), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=7)
        if with_copies:
            axes[0][1].barh(y, p["copied_mb"] or 0.0, 0.7, color=figure.colour(4))
    ax.set_yticks(ys)
    ax.set_yticklabels([series(p) for p in points])
    ax.set_xlabel(spec.rate_label)
    ax.set_title(title)
    ax.margins(x=0.12)
    if with_copies:
        axes[0][1].set_xlabel("MB copied (1e6 bytes)")
        axes[0][1].set_title("Copies between host and devices")
        axes[0][1].margins(x=0.12)
    return fig
