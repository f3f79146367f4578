"""A Chrome trace (a list of events or {"traceEvents": [...]}) as a Gantt chart: one row per (pid, tid)
track, one box per complete ("ph": "X") event, coloured by event name (or category when there are many
names). Track names come from "process_name"/"thread_name" metadata events when present.

Events of category "phase" (`conveyor cholesky --trace` writes them: warm-up, matrix generation, each
timed factorisation) are not a track: they are drawn as labelled bands along the top, and the phases that
are not timed shade the whole chart, so that a stretch where no task runs says why. What comes before the
first timed phase (the warm-up: seconds of OpenCL program build around a few tiny tasks) is left out, and
the title says how long it took: the chart's width goes to the run that was measured."""

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
    """Complete events as (track, name, category, start_us, duration_us), phases as (name, start_us,
    duration_us, timed), plus track names."""
    events, phases, names = [], [], {}
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
                if e.get("cat") == "phase":
                    args = e.get("args") if isinstance(e.get("args"), dict) else {}
                    phases.append((str(e.get("name", "?")), float(e["ts"]), float(e["dur"]),
                                   bool(args.get("timed", False))))
                    continue
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
    return events, phases, tracks, labels


def _draw_phases(ax, fig, phases, t0, scale, span_units):
    """Bands above the tracks (a row of their own at the top) with the phase's name where it fits;
    phases that are not timed shade the chart below them too."""
    top = ax.get_ylim()[1]
    fig.canvas.draw()  # sizes in inches are known once laid out
    width_in = ax.get_window_extent().width / fig.dpi
    char_in = 7 / 72 * 0.55  # a 7-point character is about 0.55 em wide
    for name, start, dur, timed in sorted(phases, key=lambda p: p[1]):
        x0, w = (start - t0) / scale, dur / scale
        shade = "0.55" if timed else "0.82"
        if not timed:
            ax.axvspan(x0, x0 + w, color="0.94", zorder=0, linewidth=0)
        ax.broken_barh([(x0, w)], (top - 0.55, 0.5), facecolors=shade, edgecolors="white",
                       linewidth=0.5, zorder=2)
        box_in = w / span_units * width_in
        # The full name, else its part before " (", else nothing (the shade still shows).
        for label in (name, name.split(" (")[0]):
            if len(label) * char_in < box_in - 0.05:
                ax.text(x0 + w / 2, top - 0.3, label, ha="center", va="center", fontsize=7,
                        color="white" if timed else "black", zorder=3, clip_on=True)
                break


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


def _fmt_us(us):
    return f"{us / 1e6:.2f} s" if us >= 1e6 else f"{us / 1e3:.0f} ms" if us >= 1e3 else f"{us:.0f} us"


def _drop_untimed_start(events, phases):
    """Events and phases from the first timed phase on, and a note naming the phases left out."""
    timed = [p[1] for p in phases if p[3]]
    if not timed:
        return events, phases, ""
    cut = min(timed)
    before = sorted((p for p in phases if p[1] + p[2] <= cut), key=lambda p: p[1])
    kept = [e for e in events if e[3] + e[4] > cut]
    if not kept:
        return events, phases, ""
    note = ", ".join(f"{p[0].split(' (')[0]} {_fmt_us(p[2])}" for p in before)
    return kept, [p for p in phases if p[1] + p[2] > cut], (f"; not shown: {note}" if note else "")


def draw(results):
    events, phases, tracks, labels = _collect(results)
    events, phases, left_out = _drop_untimed_start(events, phases)
    key, keys, keyed_by = _colour_key(events)
    pick = figure.colour if len(keys) <= 10 else figure.distinct_colour
    colours = {k: pick(i) if k != "other" else "0.72" for i, k in enumerate(keys)}
    t0 = min([e[3] for e in events] + [p[1] for p in phases])
    t1 = max([e[3] + e[4] for e in events] + [p[1] + p[2] for p in phases])
    scale, unit = _time_unit(t1 - t0)
    row = {t: i for i, t in enumerate(tracks)}
    boxes = defaultdict(list)
    busy = defaultdict(float)
    for e in events:
        boxes[(e[0], key(e))].append(((e[3] - t0) / scale, e[4] / scale))
        busy[e[0]] += e[4]
    rows = len(tracks) + (1 if phases else 0)
    height = min(1.6 + 0.42 * rows, 24.0)
    fig, axes = figure.new_figure(11.0, max(height, 3.0))
    ax = axes[0][0]
    edge = 0.3 if len(events) < 3000 else 0.0  # outlines help few boxes, hide many
    thin = (t1 - t0) / scale / 400  # narrower than about 2 pixels across the chart
    for (track, k), spans in boxes.items():
        y = len(tracks) - 1 - row[track]  # first track on top
        wide = [s for s in spans if s[1] >= thin]
        narrow = [s for s in spans if s[1] < thin]
        ax.broken_barh(wide, (y - 0.38, 0.76), facecolors=colours[k], edgecolors="white", linewidth=edge)
        # A white outline on a box a pixel or two wide paints over its colour (a short copy looked
        # like a different, paler event): narrow boxes are outlined in their own colour.
        ax.broken_barh(narrow, (y - 0.38, 0.76), facecolors=colours[k], edgecolors=colours[k],
                       linewidth=edge)
    span = max(t1 - t0, 1e-9)
    ticks = [len(tracks) - 1 - row[t] for t in tracks]
    # Busy share is summed durations over the whole span (nested events on a track count twice).
    tick_labels = [f"{labels[t]}\nbusy {100 * busy[t] / span:.0f}%" for t in tracks]
    if phases:
        ticks.append(len(tracks) - 0.4 + 0.3)
        tick_labels.append("phases\n(shaded: not timed)")
    ax.set_yticks(ticks)
    ax.set_yticklabels(tick_labels, fontsize=8)
    ax.set_ylim(-0.6, len(tracks) - 0.4 + (0.6 if phases else 0))
    ax.set_xlim(0, (t1 - t0) / scale * 1.005)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(f"time since the first {'timed phase' if left_out else 'event'} ({unit})")
    ax.set_title(f"{len(events)} events on {len(tracks)} track{'s' if len(tracks) != 1 else ''}, "
                 f"coloured by {keyed_by}{left_out}")
    figure.legend_outside(ax, [Patch(facecolor=colours[k]) for k in keys], keys, title=keyed_by)
    if phases:
        _draw_phases(ax, fig, phases, t0, scale, (t1 - t0) / scale * 1.005)
    return fig
