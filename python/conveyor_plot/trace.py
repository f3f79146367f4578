"""A Chrome trace (a list of events or {"traceEvents": [...]}) as a Gantt chart: one row per (pid, tid)
track, one box per complete ("ph": "X") event, coloured by event name (or category when there are many
names). Track names come from "process_name"/"thread_name" metadata events when present."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from matplotlib.patches import Patch

from . import figure
from .errors import UsageError

MAX_COLOURS = 12


def _sort_key(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _collect(results):
    """Complete events as (track, name, category, start_us, duration_us), plus track names."""
    events, names = [], {}
    process_names = {}
    for r in results:
        prefix = f"{r.label}: " if r.label else ""
        for e in r.rows:
            pid, tid = (r.label, e.get("pid")), e.get("tid")
            if e.get("ph") == "M" and isinstance(e.get("args"), dict) and "name" in e["args"]:
                if e.get("name") == "thread_name":
                    names[(pid, tid)] = prefix + str(e["args"]["name"])
                elif e.get("name") == "process_name":
                    process_names[pid] = prefix + str(e["args"]["name"])
            elif e.get("ph") == "X" and _finite(e.get("ts")) and _finite(e.get("dur")) and e["dur"] >= 0:
                events.append(((pid, tid), str(e.get("name", "?")), str(e.get("cat", "")), float(e["ts"]),
                               float(e["dur"])))
    if not events:
        raise UsageError("the trace has no complete events ('ph': 'X' with numeric 'ts' and 'dur')")
    tracks = sorted({e[0] for e in events}, key=lambda t: (_sort_key(t[0][0]), _sort_key(t[0][1]),
                                                           _sort_key(t[1])))
    labels = {}
    for track in tracks:
        (label, pid), tid = track
        if track in names:
            labels[track] = names[track]
        else:
            process = process_names.get((label, pid), f"{label + ': ' if label else ''}pid {pid}")
            labels[track] = f"{process} / tid {tid}"
    return events, tracks, labels


def _colour_key(events):
    """Colour by name when there are few names, else by category when that is informative."""
    names = Counter(e[1] for e in events)
    cats = Counter(e[2] for e in events)
    if len(names) <= MAX_COLOURS:
        return lambda e: e[1], [n for n, _ in names.most_common()], "event"
    if 1 < len(cats) <= MAX_COLOURS:
        return lambda e: e[2] or "(none)", [c or "(none)" for c, _ in cats.most_common()], "category"
    top = [n for n, _ in names.most_common(MAX_COLOURS - 1)]
    return (lambda e: e[1] if e[1] in top else "other"), top + ["other"], "event"


def _time_unit(span_us):
    if span_us >= 20e6:
        return 1e6, "s"
    if span_us >= 20e3:
        return 1e3, "ms"
    return 1.0, "us"


def draw(results):
    events, tracks, labels = _collect(results)
    key, keys, keyed_by = _colour_key(events)
    pick = figure.colour if len(keys) <= 10 else figure.distinct_colour
    colours = {k: pick(i) if k != "other" else "0.72" for i, k in enumerate(keys)}
    t0 = min(e[3] for e in events)
    t1 = max(e[3] + e[4] for e in events)
    scale, unit = _time_unit(t1 - t0)
    row = {t: i for i, t in enumerate(tracks)}
    boxes = defaultdict(list)
    busy = defaultdict(float)
    for e in events:
        boxes[(e[0], key(e))].append(((e[3] - t0) / scale, e[4] / scale))
        busy[e[0]] += e[4]
    height = min(1.6 + 0.42 * len(tracks), 24.0)
    fig, axes = figure.new_figure(11.0, max(height, 3.0))
    ax = axes[0][0]
    edge = 0.3 if len(events) < 3000 else 0.0  # outlines help few boxes, hide many
    for (track, k), spans in boxes.items():
        y = len(tracks) - 1 - row[track]  # first track on top
        ax.broken_barh(spans, (y - 0.38, 0.76), facecolors=colours[k], edgecolors="white", linewidth=edge)
    span = max(t1 - t0, 1e-9)
    ax.set_yticks([len(tracks) - 1 - row[t] for t in tracks])
    # Busy share is summed durations over the whole span (nested events on a track count twice).
    ax.set_yticklabels([f"{labels[t]}\nbusy {100 * busy[t] / span:.0f}%" for t in tracks], fontsize=8)
    ax.set_ylim(-0.6, len(tracks) - 0.4)
    ax.set_xlim(0, (t1 - t0) / scale * 1.005)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"time since the first event ({unit})")
    ax.set_title(f"{len(events)} events on {len(tracks)} track{'s' if len(tracks) != 1 else ''}, "
                 f"coloured by {keyed_by}")
    figure.legend_outside(ax, [Patch(facecolor=colours[k]) for k in keys], keys, title=keyed_by)
    return fig
