"""conveyor cholesky: GFLOP/s per configuration, and the copies each configuration made."""

from __future__ import annotations

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text

CONFIG_KEYS = ["source", "n", "block", "precision", "devices", "coherence"]
COPY_KEYS = [("h2d_copies", "host to device"), ("d2h_copies", "device to host"),
             ("d2d_copies", "device to device")]


def _configs(results):
    configs = []
    for row, where, source in tagged_rows(results):
        config = {k: text(row, k) for k in CONFIG_KEYS[1:]}
        config["source"] = source
        config["gflops"] = number(row, "gflops", where)
        config["copies"] = [number(row, k, where, optional=True) for k, _ in COPY_KEYS]
        configs.append(config)
    if not configs:
        raise UsageError("no cholesky rows to plot")
    return configs


def draw(results):
    configs = _configs(results)
    # Labels name only what varies; what is common goes into the panel title.
    varying = [k for k in CONFIG_KEYS if len({c[k] for c in configs}) > 1]
    common = [f"{k}={configs[0][k]}" for k in CONFIG_KEYS[1:] if k not in varying and configs[0][k]]

    def label(c):
        return " ".join(c[k] if k in ("source", "precision", "devices", "coherence") else f"{k}={c[k]}"
                        for k in varying) or "run"

    with_copies = any(v is not None for c in configs for v in c["copies"])
    height = 1.4 + 0.38 * len(configs)
    fig, axes = figure.new_figure(11.0 if with_copies else 7.5, max(height, 3.2), 1, 2 if with_copies else 1,
                                  sharey=True)
    ax = axes[0][0]
    ys = list(range(len(configs)))[::-1]  # first row on top
    colours = {}
    for y, c in zip(ys, configs):
        key = c["devices"]
        colours.setdefault(key, figure.colour(len(colours)))
        ax.barh(y, c["gflops"], 0.7, color=colours[key])
        ax.annotate(figure.short(c["gflops"]), (c["gflops"], y), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=7)
    ax.set_yticks(ys)
    ax.set_yticklabels([label(c) for c in configs])
    ax.set_xlabel("GFLOP/s (1e9 floating-point operations per second)")
    ax.set_title("Factorisation rate" + (f" ({', '.join(common)})" if common else ""))
    ax.margins(x=0.12)
    if with_copies:
        cx = axes[0][1]
        left = [0.0] * len(configs)
        for i, (_, name) in enumerate(COPY_KEYS):
            widths = [c["copies"][i] or 0.0 for c in configs]
            cx.barh(ys, widths, 0.7, left=left, color=figure.colour(4 + i), label=name)
            left = [a + b for a, b in zip(left, widths)]
        for y, total in zip(ys, left):
            cx.annotate(f"{total:.0f}", (total, y), xytext=(3, 0), textcoords="offset points", va="center",
                        fontsize=7)
        cx.use_sticky_edges = False  # a stacked zero-width segment would otherwise pin the right edge
        cx.set_xlim(left=0)
        cx.set_xlabel("tile copies (count)")
        cx.set_title("Copies made by the runtime")
        cx.margins(x=0.12)
        figure.legend_outside(cx)
    return fig
