#!/usr/bin/env python3
"""Writes the synthetic JSON fixtures next to this file, for the `conveyor plot` tests.

The numbers are invented, shaped after the seeds' published figures (000 for pipelines, 004 for probe,
002 for the simulator sweep); every fixture says so in its notes. Run it again when a row schema changes:

    python3 tests/data/make_fixtures.py
"""

import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
NOTE = "synthetic test fixture, not a measurement"
DATE = "2026-05-10T12:00:00Z"
BIG_HOST = {"hostname": "fixture-host", "cpu_model": "AMD EPYC 7B13 (synthetic)", "packages": 1, "cores": 56,
            "numa_nodes": 1, "llc_total_bytes": 33554432, "memory_bytes": 274877906944,
            "devices": [{"id": "cpu", "name": "AMD EPYC 7B13"}]}
SMALL_VM = {"hostname": "fixture-vm", "cpu_model": "AMD EPYC (synthetic, KVM)", "packages": 1, "cores": 2,
            "numa_nodes": 1, "llc_total_bytes": 33554432, "memory_bytes": 8589934592,
            "devices": [{"id": "cpu", "name": "AMD EPYC"}]}
BYTES_PER_ELEMENT = {"copy": 16, "scale": 16, "add": 24, "triad": 24, "dot": 16}
KERNEL_FACTOR = {"copy": 1.0, "scale": 1.02, "add": 1.08, "triad": 1.07, "dot": 0.95}


def result(command, options, rows, machine=BIG_HOST):
    return {"conveyor": "0.1.0", "schema": 1, "command": command, "machine": machine,
            "build": {"version": "0.1.0", "build_type": "Release", "compiler": "GNU 12.2.0",
                      "backends": ["cpu"], "libraries": ["hwloc", "numa"]},
            "options": options, "date": DATE, "notes": [NOTE], "results": rows}


def write(name, doc):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
        json.dump(doc, out, indent=1)
        out.write("\n")


def stream_row(kernel, threads, best, variant="standard", peak=307.2, elements=134217728, **extra):
    median = best * random.uniform(0.93, 0.98)
    worst = median * random.uniform(0.85, 0.95)
    moved = BYTES_PER_ELEMENT[kernel] * elements
    row = {"device": "cpu", "variant": variant, "threads": threads, "binding": "scatter", "kernel": kernel,
           "elements": elements, "bytes_per_iteration": moved, "best_gbs": round(best, 2),
           "median_gbs": round(median, 2), "worst_gbs": round(worst, 2), "best_s": round(moved / best / 1e9, 6),
           "percent_of_peak": round(100 * best / peak, 1) if peak else None, "validated": True}
    row.update(extra)
    return row


def stream_fixtures():
    rows = []
    for variant, factor in (("standard", 1.0), ("tuned", 1.12)):
        for threads in (1, 2, 4, 8, 16, 28, 56):
            saturating = 250 * (1 - math.exp(-threads / 11.0))
            for kernel, k in KERNEL_FACTOR.items():
                best = min(saturating * k * factor, 290) * random.uniform(0.97, 1.03)
                rows.append(stream_row(kernel, threads, best, variant))
    write("stream_threads.json",
          result("stream", {"threads": "1-56", "elements": 134217728, "repeats": 20}, rows))

    rows = [stream_row(kernel, 2, 17.5 * k * factor * random.uniform(0.97, 1.03), variant, peak=None,
                       elements=33554432)
            for variant, factor in (("standard", 1.0), ("tuned", 1.15)) for kernel, k in KERNEL_FACTOR.items()]
    write("stream_single.json",
          result("stream", {"threads": "2", "elements": 33554432, "repeats": 10}, rows, SMALL_VM))

    # Seed 000's table: GB/s CPU-only vs DSA+CPU at 1, 8 and 20 cores; prefetch is invented.
    published = {"triad": {1: (20.09, 37.23), 8: (138.96, 189.0), 20: (234.98, 229.38)},
                 "dot": {1: (15.78, 32.55), 8: (118.11, 156.85), 20: (245.3, 243.05)},
                 "scale": {1: (21.13, 33.51), 8: (140.70, 198.91), 20: (215.23, 225.72)}}
    prefetch_gain = {1: 1.25, 8: 1.1, 20: 0.99}
    rows = []
    for kernel, by_threads in published.items():
        for threads, (cpu, dsa) in by_threads.items():
            prefetch = cpu * prefetch_gain[threads]
            rows.append(stream_row(kernel, threads, cpu, pipeline="none", speedup=1.0))
            rows.append(stream_row(kernel, threads, dsa, pipeline="dsa", speedup=round(dsa / cpu, 3)))
            rows.append(stream_row(kernel, threads, prefetch, pipeline="prefetch",
                                   speedup=round(prefetch / cpu, 3)))
    write("stream_pipeline.json",
          result("stream", {"threads": "1,8,20", "pipeline": "none,dsa,prefetch", "block_bytes": 1048576,
                            "queue_depth": 4}, rows))


def matmul_time(n, device):
    """Compute at a device's rate, plus fixed offload cost and the copies of three n x n doubles."""
    flops = {"cpu": 8e9, "opencl:0": 60e9, "opencl:1": 25e9}[device]
    fixed = {"cpu": 2e-6, "opencl:0": 120e-6, "opencl:1": 30e-6}[device]
    move = 0 if device == "cpu" else 24 * n * n / {"opencl:0": 11.5e9, "opencl:1": 18.4e9}[device]
    return 2 * n**3 / flops + fixed + move


def probe_fixture():
    rows = []
    links = (("cpu", "host", 19.4, 1.0), ("opencl:0", "pinned", 11.5, 20.0),
             ("opencl:0", "pageable", 6.2, 35.0), ("opencl:1", "svm", 18.4, 4.0))
    for device, model, bw, latency_us in links:
        for direction in ("h2d", "d2h") if device != "cpu" else ("copy",):
            rate = bw * (0.92 if direction == "d2h" else 1.0) * 1e9
            for size in (4096 * 4**i for i in range(9)):
                best = size / (latency_us * 1e-6 + size / rate) / 1e9
                rows.append({"kind": "bandwidth", "device": device, "model": model, "direction": direction,
                             "bytes": size, "best_gbs": round(best, 3),
                             "median_gbs": round(best * random.uniform(0.9, 0.97), 3)})
    for device, enqueue, roundtrip in (("opencl:0", 8.1, 36.9), ("opencl:1", 7.5, 38.0)):
        rows.append({"kind": "dispatch", "device": device, "enqueue_us": enqueue, "roundtrip_us": roundtrip})
    # Seed 004's table 3 (Td, Tm, BW); attach points scatter around Td + Tm + bytes / BW.
    for device, model, td, tm, bw in (("cpu", "host", 1.2, 1.1, 19.4), ("opencl:0", "pinned", 36.9, 59.6, 11.5),
                                      ("opencl:1", "svm", 38.0, 1.6, 18.4)):
        xs = [0, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
        ys = [td + tm + 2 * x / (bw * 1e3) + random.gauss(0, 0.4 + 0.01 * (td + tm)) for x in xs]
        rows += [{"kind": "attach", "device": device, "model": model, "bytes": x, "time_us": round(y, 3)}
                 for x, y in zip(xs, ys)]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        intercept = my - slope * mx
        rms = math.sqrt(sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys)) / len(xs))
        rows.append({"kind": "model", "device": device, "model": model, "td_us": td,
                     "tm_us": round(intercept - td, 3), "bw_gbs": bw, "fit_intercept_us": round(intercept, 3),
                     "fit_slope_us_per_byte": slope, "rms_residual_us": round(rms, 3)})
    for device in ("cpu", "opencl:0", "opencl:1"):
        for n in (32, 64, 128, 256, 512, 1024):
            t = matmul_time(n, device)
            rows.append({"kind": "app", "app": "matmul", "device": device, "size": n, "time_s": t,
                         "speedup_vs_cpu": round(matmul_time(n, "cpu") / t, 3)})
    rows.append({"kind": "crossover", "app": "matmul", "device": "opencl:0", "size": 128})
    rows.append({"kind": "crossover", "app": "matmul", "device": "opencl:1", "size": 64})
    for device in ("cpu", "opencl:1"):
        for size in (1 << 10, 1 << 14, 1 << 18, 1 << 22):
            t = size / 64 * (0.5e-6 if device == "cpu" else 0.6e-6) + (0 if device == "cpu" else 40e-6)
            rows.append({"kind": "app", "app": "md5", "device": device, "size": size, "time_s": t,
                         "speedup_vs_cpu": None})
    rows.append({"kind": "crossover", "app": "md5", "device": "opencl:1", "size": None})
    write("probe.json", result("probe", {"devices": "all", "repeats": 20}, rows))


def cholesky_fixture():
    rows = []
    tiles = 16 * 17 // 2  # lower triangle of a 16 x 16 tile grid
    for precision, factor in (("double", 1.0), ("single", 1.9)):
        for devices, rate in (("cpu", 80.0), ("cpu+cuda:0", 900.0)):
            for coherence in ("coherent",) if devices == "cpu" else ("naive", "coherent"):
                naive = coherence == "naive"
                gflops = rate * factor * (0.45 if naive else 1.0)
                on_device = devices != "cpu"
                rows.append({"n": 16384, "block": 1024, "precision": precision, "devices": devices,
                             "coherence": coherence, "gflops": round(gflops, 1),
                             "time_s": round(16384**3 / 3 / gflops / 1e9, 3),
                             "h2d_copies": tiles * (6 if naive else 1) if on_device else 0,
                             "d2h_copies": tiles * (5 if naive else 1) if on_device else 0, "d2d_copies": 0})
    write("cholesky.json", result("cholesky", {"n": 16384, "block": 1024}, rows))


def trace_fixture():
    """A tiled Cholesky (6 x 6 tiles) on two CPU workers and one GPU worker fed by two movers."""
    tracks = {(1, 1): "cpu worker 0", (1, 2): "cpu worker 1", (2, 1): "cuda:0 worker", (2, 2): "cuda:0 h2d",
              (2, 3): "cuda:0 d2h"}
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "host"}},
              {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "cuda:0"}}]
    events += [{"ph": "M", "name": "thread_name", "pid": p, "tid": t, "args": {"name": n}}
               for (p, t), n in tracks.items()]
    cpu_us = {"potrf": 900, "trsm": 700, "syrk": 650, "gemm": 1200}
    gpu_us = {"potrf": 400, "trsm": 150, "syrk": 120, "gemm": 90}
    free = dict.fromkeys(tracks, 0.0)
    clock = 0.0

    def event(name, cat, track, start, dur):
        events.append({"ph": "X", "name": name, "cat": cat, "pid": track[0], "tid": track[1],
                       "ts": round(start, 1), "dur": round(dur, 1)})
        free[track] = start + dur

    tiles = 6
    for k in range(tiles):
        tasks = ([("potrf", k, k)] + [("trsm", i, k) for i in range(k + 1, tiles)] +
                 [("syrk", i, k) for i in range(k + 1, tiles)] +
                 [("gemm", i, j) for i in range(k + 1, tiles) for j in range(k + 1, i)])
        for name, _, _ in tasks:
            if name in ("gemm", "syrk") or (name == "trsm" and random.random() < 0.5):
                event("copy h2d", "transfer", (2, 2), max(free[(2, 2)], clock), 85)
                event(name, "task", (2, 1), max(free[(2, 1)], free[(2, 2)]), gpu_us[name])
                if random.random() < 0.3:
                    event("copy d2h", "transfer", (2, 3), max(free[(2, 3)], free[(2, 1)]), 90)
            else:
                worker = min((1, 1), (1, 2), key=free.get)
                event(name, "task", worker, max(free[worker], clock), cpu_us[name] * random.uniform(0.9, 1.1))
        clock = max(free.values()) * 0.6
    write("trace.json", {"conveyor": "0.1.0", "command": "trace", "machine": BIG_HOST, "date": DATE,
                         "notes": [NOTE], "displayTimeUnit": "ms", "traceEvents": events})


def trace_phases_fixture():
    """`conveyor cholesky --trace` shape: a short warm-up, a long gap (an OpenCL program build), the matrix
    generated, then the timed factorisation; phases on a track of their own (category "phase")."""
    with open(os.path.join(HERE, "trace.json"), encoding="utf-8") as f:
        doc = json.load(f)
    events = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    shift = 800000.0  # the factorisation starts 0.8 s in
    warm = [{"ph": "X", "name": n, "cat": "task", "pid": 1, "tid": 1, "ts": 100.0 + 50 * i, "dur": 40.0}
            for i, n in enumerate(("potrf", "trsm", "syrk", "potrf"))]
    warm.append({"ph": "X", "name": "gemm", "cat": "task", "pid": 2, "tid": 1, "ts": 740000.0, "dur": 30.0})
    body = [dict(e, ts=round(e["ts"] + shift, 1)) for e in doc["traceEvents"] if e["ph"] == "X"]
    end = max(e["ts"] + e["dur"] for e in body)
    events += [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "cholesky"}},
               {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "phases"}}]
    for name, start, stop, timed in (
            ("warm-up (3 x 3 tiles, first use of each device: OpenCL program build, CUDA handles; not timed)",
             80.0, 740100.0, False),
            ("matrix generation (not timed)", 740200.0, shift - 100, False),
            ("factorisation 1 (timed)", shift - 50, end + 20, True)):
        events.append({"ph": "X", "name": name, "cat": "phase", "pid": 0, "tid": 1, "ts": start,
                       "dur": round(stop - start, 1), "args": {"timed": timed}})
    write("trace_phases.json", dict(doc, traceEvents=events + warm + body))


def sim_sweep_fixture():
    # Seed 002, 64 nodes: relative cycles and stalls for 0, 8, 16, 32 store-buffer entries.
    cycles = {"pipeline": [1, 0.9, 0.86, 0.83], "stencil": [1, 0.995, 0.994, 0.994],
              "all_to_all": [1, 0.93, 0.88, 0.81], "cannon": [1, 0.93, 0.93, 0.93], "bitonic": [1, 0.99, 0.99, 0.99]}
    stalls = {"pipeline": [1, 0.2, 0.08, 0.05], "stencil": [1, 0.97, 0.96, 0.96],
              "all_to_all": [1, 0.75, 0.6, 0.45], "cannon": [1, 0.7, 0.7, 0.7], "bitonic": [1, 0.6, 0.52, 0.5]}
    base = {"pipeline": 2.1e6, "stencil": 5.4e6, "all_to_all": 3.3e6, "cannon": 8.8e6, "bitonic": 6.1e6}
    rows = []
    for nodes in (16, 64):
        for bench in cycles:
            total = base[bench] * (1 if nodes == 16 else 1.7)
            for entries, rc, rs in zip((0, 8, 16, 32), cycles[bench], stalls[bench]):
                if nodes == 16:
                    rc = 1 - (1 - rc) * 0.8  # smaller machine, smaller gain
                rows.append({"benchmark": bench, "nodes": nodes, "entries": entries, "cycles": int(total * rc),
                             "relative_cycles": round(rc, 4), "stall_cycles": int(total * 0.3 * rs),
                             "relative_stalls": round(rs, 4)})
    write("sim_sweep.json", result("sim_sweep", {"nodes": [16, 64], "entries": [0, 8, 16, 32]}, rows))


def devices_fixture():
    """A result of a command that has no figure."""
    write("devices.json", result("devices", {}, [{"id": "cpu", "kind": "cpu", "name": "AMD EPYC",
                                                  "platform": "host", "memory_bytes": 8589934592,
                                                  "peak_gbs": 0.0, "compute_units": 2}], SMALL_VM))


def copy_fields(h2d, d2h, h2d_bytes, d2h_bytes):
    """The copy fields every app's row has (cholesky, qr, stencil)."""
    return {"h2d_copies": h2d, "d2h_copies": d2h, "d2d_copies": 0, "total_copies": h2d + d2h,
            "h2d_bytes": h2d_bytes, "d2h_bytes": d2h_bytes, "d2d_bytes": 0,
            "total_bytes": h2d_bytes + d2h_bytes}


def qr_fixture():
    """`conveyor qr` at four n (in one file, as several runs joined), both precisions on the CPUs
    and double on a device; the block chosen per n as the default rule does. No random draws."""
    rows = []
    for devices, peak, half in (("cpu", 30.0, 1500.0), ("opencl:0", 4.0, 2500.0)):
        for precision, factor in (("double", 1.0), ("single", 2.0)):
            if devices != "cpu" and precision == "single":
                continue
            for n, block in ((1024, 256), (2048, 320), (4096, 640), (8192, 1024)):
                gflops = peak * factor * n / (n + half)
                time_s = 4 * n**3 / 3 / gflops / 1e9
                tiles = -(-n // block)
                row = {"n": n, "block": block, "ib": 32, "tiles": tiles, "precision": precision,
                       "devices": devices, "scheduler": "eager" if devices == "cpu" else "model",
                       "cpu_workers": 2 if devices == "cpu" else 0, "gflops": round(gflops, 2),
                       "time_s": round(time_s, 4), "median_time_s": round(time_s * 1.04, 4),
                       "repeat": 3, "check": "passed", "platform": None, "simulated": False}
                tile_bytes = (8 if precision == "double" else 4) * block * block
                on_device = devices != "cpu"
                row.update(copy_fields(tiles * tiles if on_device else 0,
                                       tiles * tiles if on_device else 0,
                                       tiles * tiles * tile_bytes if on_device else 0,
                                       tiles * tiles * tile_bytes if on_device else 0))
                rows.append(row)
    write("qr.json", result("qr", {"n": 8192, "ib": 32, "repeat": 3}, rows, SMALL_VM))


def stencil_fixture():
    """`conveyor stencil` at four grid sides, 20 sweeps, on the CPUs and on a device (which copies
    the grid in and both grids home), one sweep per task and, on the device, 4 (--temporal-block).
    No random draws."""
    rows = []
    for devices, rate, depth in (("cpu", 16.0, 1), ("opencl:0", 4.5, 1), ("opencl:0", 9.0, 4)):
        for n, block in ((1024, 256), (2048, 320), (4096, 640), (8192, 1024)):
            gbs = rate * (1.0 - 300.0 / (n + 300.0)) if devices == "cpu" else rate * n / (n + 600.0)
            sweep_bytes = 16.0 * n * n
            time_s = 20 * sweep_bytes / gbs / 1e9
            on_device = devices != "cpu"
            grid = 8 * n * n
            row = {"n": n, "block": block, "tiles": -(-n // block), "sweeps": 20,
                   "temporal_block": depth, "rounds": -(-20 // depth), "devices": devices,
                   "scheduler": "eager" if devices == "cpu" else "model",
                   "cpu_workers": 2 if devices == "cpu" else 0, "time_s": round(time_s, 4),
                   "median_time_s": round(time_s * 1.05, 4), "repeat": 3, "gbs": round(gbs, 2),
                   "sweep_bytes": sweep_bytes, "check": "passed", "mismatches": 0}
            row.update(copy_fields(16 if on_device else 0, 32 if on_device else 0,
                                   grid if on_device else 0, 2 * grid if on_device else 0))
            rows.append(row)
    write("stencil.json", result("stencil", {"sweeps": 20, "repeat": 3}, rows, SMALL_VM))


if __name__ == "__main__":
    random.seed(7)
    stream_fixtures()
    probe_fixture()
    cholesky_fixture()
    trace_fixture()
    sim_sweep_fixture()
    devices_fixture()
    trace_phases_fixture()  # it reads trace.json, and the random draws above stay as they were
    qr_fixture()  # no random draws: the fixtures above are unchanged by these
    stencil_fixture()
