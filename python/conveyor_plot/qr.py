"""conveyor qr: GFLOP/s against the matrix order (or the tile size, or ib: whichever varies), one
line per configuration (devices, precision, scheduler, grid, platform), and the bytes copied between
host and devices when there were any. Several runs (one n each) are drawn together:
`conveyor plot qr-1024.json qr-2048.json -o qr.png`."""

from __future__ import annotations

from . import rates

SPEC = rates.Spec(
    kind="qr",
    rate_key="gflops",
    rate_label="GFLOP/s (4/3 n³ flop / time / 1e9)",
    x_keys=["n", "block", "ib"],
    series_keys=["devices", "precision", "scheduler", "grid", "platform"],
    names={"gflops": "Factorisation rate", "n": "matrix order n", "block": "tile size (block)",
           "ib": "inner blocking (ib)"},
)


def draw(results):
    return rates.draw(results, SPEC)
