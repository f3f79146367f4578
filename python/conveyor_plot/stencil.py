"""conveyor stencil: GB/s against the grid side (or the sweeps, the sweeps per task, the tile size:
the first that varies), one line per configuration (devices, sweeps per task, scheduler, grid,
platform), and the bytes copied between host and devices when there were any. Several runs (one n
each) are drawn together: `conveyor plot st-2048.json st-4096.json -o stencil.png`."""

from __future__ import annotations

from . import rates

SPEC = rates.Spec(
    kind="stencil",
    rate_key="gbs",
    rate_label="GB/s (sweeps · 16 n² bytes / time / 1e9)",
    x_keys=["n", "sweeps", "temporal_block", "block"],
    series_keys=["devices", "temporal_block", "scheduler", "grid", "platform"],
    names={"gbs": "Sweep bandwidth", "n": "grid side n", "sweeps": "sweeps",
           "temporal_block": "sweeps per task (--temporal-block)", "block": "tile size (block)"},
)


def draw(results):
    return rates.draw(results, SPEC)
