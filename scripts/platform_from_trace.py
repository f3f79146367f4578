#!/usr/bin/env python3
"""Writes a simulated-platform file (docs/simulation.md) calibrated from the Chrome trace of a real
`conveyor cholesky --trace` run: host cores = the CPU worker tracks, per-codelet GFLOP/s on the
host and on each device from the task events, and per-direction link bandwidth from the copy
events. The tiles must all be `block` x `block` (block divides n). The run's warm-up factorisation
(3 x 3 tiles, 10 tasks, first in time) is left out.

  conveyor cholesky --n 2048 --block 256 --devices cpu,opencl:0 --trace t.json
  scripts/platform_from_trace.py t.json --block 256 --name vm-epyc2 -o vm.json
"""
import argparse
import collections
import json
import sys

FLOPS = {"potrf": lambda b: b**3 / 3, "trsm": lambda b: b**3, "syrk": lambda b: b**3,
         "gemm": lambda b: 2 * b**3}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--block", type=int, required=True)
    ap.add_argument("--elem-bytes", type=int, default=8, help="8 for double (default), 4 for single")
    ap.add_argument("--name", default="calibrated")
    ap.add_argument("--memory-gb", type=float, default=8)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()

    events = json.load(open(a.trace))["traceEvents"]
    # A distributed run's trace (conveyor cholesky --grid --trace) has every rank, rank r's
    # processes at pids 1000 r + pid, named "rank r ...": rank 0's describe one node (its cores,
    # its devices), and every rank's host tasks (pid 1000 r + 1) count towards the host's rates,
    # so that one rank's luck does not make the model. Messages (pid 1000 r + 900) are not a
    # device. Such a run has no warm-up factorisation.
    distributed = any(e["ph"] == "M" and e["name"] == "process_name" and
                      e["args"]["name"].startswith("rank 0 ") for e in events)
    if distributed:
        for e in events:
            if e.get("pid", 0) % 1000 == 1 and e["ph"] == "X":
                e["pid"] = 1
        events = [e for e in events if e.get("pid", 0) < 900]
        for e in events:
            if e["ph"] == "M" and e["name"] in ("process_name", "thread_name"):
                e["args"]["name"] = e["args"]["name"].removeprefix("rank 0 ")
    names, processes = {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "process_name":
            processes[e["pid"]] = e["args"]["name"]
    spans = sorted((e for e in events if e["ph"] == "X"), key=lambda e: e["ts"])
    tasks = [e for e in spans if e["cat"] == "task"]
    if not distributed:
        if len(tasks) <= 10:
            sys.exit("platform_from_trace: the trace has no tasks besides the warm-up")
        split = max(e["ts"] + e["dur"] for e in tasks[:10])
        spans = [e for e in spans if e["ts"] >= split]

    busy = collections.defaultdict(lambda: collections.defaultdict(float))  # pid -> codelet -> us
    count = collections.defaultdict(lambda: collections.defaultdict(int))
    copy_us = collections.defaultdict(float)  # (pid, kind) -> us
    copies = collections.defaultdict(int)
    for e in spans:
        if e["cat"] == "task" and e["name"] in FLOPS:  # not the MPI layer's sends and receives
            busy[e["pid"]][e["name"]] += e["dur"]
            count[e["pid"]][e["name"]] += 1
        elif e["cat"] == "transfer":
            copy_us[(e["pid"], e["name"])] += e["dur"]
            copies[(e["pid"], e["name"])] += 1

    def gflops(pid):
        return {c: round(count[pid][c] * FLOPS[c](a.block) / (busy[pid][c] * 1e-6) / 1e9, 4)
                for c in busy[pid] if busy[pid][c] > 0}

    tile = a.block * a.block * a.elem_bytes
    cores = sum(1 for (pid, _), n in names.items() if pid == 1 and n.startswith("cpu worker"))
    platform = {
        "name": a.name,
        "description": f"Calibrated by scripts/platform_from_trace.py from {a.trace} "
                       f"({a.block} x {a.block} tiles)",
        "host": {"cores": cores, "gflops": gflops(1)},
        "devices": [],
        "links": [],
    }
    # pid 1 is the host; a simulated run's trace also has a "links" process (not a device).
    for pid in sorted(p for p in processes if p != 1 and processes[p] not in ("links", "cholesky")):
        dev = processes[pid].replace(":", "")  # opencl:0 -> opencl0 (ids are id:k)
        g = gflops(pid)
        spec = {"id": dev, "memory_gb": a.memory_gb}
        if g:
            spec["gflops"] = g
        platform["devices"].append(spec)

        def gbs(kind):
            us = copy_us[(pid, kind)]
            return round(copies[(pid, kind)] * tile / (us * 1e-6) / 1e9, 4) if us > 0 else 100.0

        platform["links"].append({"between": ["host", dev + ":0"],
                                  "gbs": [gbs("copy h2d"), gbs("copy d2h")]})
    json.dump(platform, open(a.output, "w"), indent=2)
    print(f"wrote {a.output}: host {cores} cores {platform['host']['gflops']}; devices "
          f"{[(d['id'], d.get('gflops')) for d in platform['devices']]}; links "
          f"{[l['gbs'] for l in platform['links']]}")


if __name__ == "__main__":
    main()
