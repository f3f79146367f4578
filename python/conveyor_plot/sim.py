"""conveyor sim / sim_sweep: cycles and stall cycles relative to the baseline (no store buffer), per
benchmark, one bar per store-buffer size and one panel per node count, as in seed 002's figures 4 and 5.

relative_cycles and relative_stalls are ratios to the 0-entry run (1.0 = baseline); where a row lacks
them they are computed from cycles and stall_cycles of the 0-entry row of the same benchmark and nodes.
Without a baseline the absolute cycle counts are drawn instead."""

from __future__ import annotations

from collections import defaultdict

from . import figure
from .errors import UsageError
from .results import number, tagged_rows, text


def _runs(results):
    runs = []
    for row, where, source in tagged_rows(results):
        runs.append({
            "benchmark": (f"{source} " if source else "") + text(row, "benchmark", "?"),
            "nodes": number(row, "nodes", where, optional=True),
            "entries": number(row, "entries", where, optional=True),
            "cycles": number(row, "cycles", where, optional=True),
            "stalls": number(row, "stall_cycles", where, optional=True),
            "rel_cycles": number(row, "relative_cycles", where, optional=True),
            "rel_stalls": number(row, "relative_stalls", where, optional=True),
        })
    if not runs:
        raise UsageError("no sim rows to plot")
    return runs


def _fill_relative(runs):
    """Ratios to the 0-entry run where the rows do not carry them; True when every run has them."""
    base = {(r["benchmark"], r["nodes"]): r for r in runs if r["entries"] == 0}
    for r in runs:
        b = base.get((r["benchmark"], r["nodes"]))
        if b is None:
            continue
        if r["rel_cycles"] is None and r["cycles"] is not None and b["cycles"]:
            r["rel_cycles"] = r["cycles"] / b["cycles"]
        if r["rel_stalls"] is None and r["stalls"] is not None and b["stalls"]:
            r["rel_stalls"] = r["stalls"] / b["stalls"]
    return all(r["rel_cycles"] is not None for r in runs)


def _count(v):
    return f"{v / 1e6:.3g} M" if v >= 1e6 else f"{v / 1e3:.3g} k" if v >= 1e3 else f"{v:.0f}"


def _grouped(ax, runs, value, benchmarks, entries, base_key=None):
    width = 0.8 / max(len(entries), 1)
    for slot, e in enumerate(entries):
        xs, hs = [], []
        for j, b in enumerate(benchmarks):
            match = [r for r in runs if r["benchmark"] == b and r["entries"] == e and value(r) is not None]
            if match:
                xs.append(j - 0.4 + width * (slot + 0.5))
                hs.append(value(match[0]))
        label = "none (baseline)" if e == 0 else f"{e:g} entries" if e is not None else "run"
        bars = ax.bar(xs, hs, width * 0.92, color=figure.colour(slot), label=label)
        if len(xs) * len(entries) <= 40:
            ax.bar_label(bars, labels=[figure.short(h) for h in hs], fontsize=6, padding=1)
    ax.set_xticks(range(len(benchmarks)))
    labels = [b.replace("_", " ") for b in benchmarks]
    if base_key:
        # A percentage says nothing of what it is a percentage of (0 % of 13 k stall cycles, or of
        # none?): the baseline's own count goes under each benchmark's name.
        for j, b in enumerate(benchmarks):
            base = [r[base_key] for r in runs if r["benchmark"] == b and r["entries"] == 0]
            if base and base[0] is not None:
                labels[j] += f"\n(100 % = {_count(base[0])})"
    ax.set_xticklabels(labels, rotation=20 if not base_key else 0, ha="right" if not base_key else "center")


def draw(results):
    runs = _runs(results)
    relative = _fill_relative(runs)
    benchmarks = list(dict.fromkeys(r["benchmark"] for r in runs))
    entries = sorted({r["entries"] for r in runs}, key=lambda e: (e is None, e or 0))
    if relative and len(entries) > 1:
        entries = [e for e in entries if e != 0]  # the baseline is the 100% line
    nodes = sorted({r["nodes"] for r in runs}, key=lambda n: (n is None, n or 0))
    metrics = ([("rel_cycles", "Relative cycles", "cycles (% of baseline)"),
                ("rel_stalls", "Relative stall cycles", "stall cycles (% of baseline)")] if relative else
               [("cycles", "Cycles", "cycles"), ("stalls", "Stall cycles", "stall cycles")])
    metrics = [m for m in metrics if any(r[m[0]] is not None for r in runs)]
    by_nodes = defaultdict(list)
    for r in runs:
        by_nodes[r["nodes"]].append(r)
    width = max(5.0, 0.55 * len(benchmarks) * max(len(entries), 1) * 0.5 + 2.5)
    fig, axes = figure.new_figure(width * len(nodes) + 1.6, 3.8 * len(metrics), len(metrics), len(nodes),
                                  sharey="row")
    scale = 100.0 if relative else 1.0
    for i, (key, title, ylabel) in enumerate(metrics):
        for j, n in enumerate(nodes):
            ax = axes[i][j]
            _grouped(ax, by_nodes[n], lambda r, key=key: None if r[key] is None else r[key] * scale,
                     benchmarks, entries, {"rel_cycles": "cycles", "rel_stalls": "stalls"}.get(key))
            if relative:
                ax.axhline(100.0, color="0.3", linewidth=0.8, linestyle="--")
            ax.set_title(f"{title}, {n:g} nodes" if n is not None else title)
            if j == 0:
                ax.set_ylabel(ylabel)
        if i == 0:
            figure.legend_outside(axes[i][-1], title="store buffer")
    return fig
