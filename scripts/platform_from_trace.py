#!/usr/bin/env python3
"""Writes a simulated-platform file (docs/simulation.md) calibrated from the Chrome traces of real
`conveyor cholesky --trace` runs: host cores = the CPU worker tracks, per-codelet GFLOP/s on the
host and on each device from the task events, and per-direction link bandwidth from the copy
events. The tiles of each run must all be `block` x `block` (block divides n). Each run's warm-up
factorisation (3 x 3 tiles, 10 tasks, first in time) is left out.

  conveyor cholesky --n 2048 --block 256 --devices cpu,opencl:0 --trace t.json
  scripts/platform_from_trace.py t.json --block 256 --name vm-epyc2 -o vm.json

Several traces (one --block each, in order) pool their events; where a device ran a codelet at
several tile sizes, its rate is a list of [flops per task, GFLOP/s] points (docs/simulation.md).
Options for a calibrated twin of a GPU node (docs/simulation.md, "The H200 node twin"):
  --statistic median   a codelet's time is its median task, not the mean (robust to first calls)
  --skip-first         also leave out each run's first timed factorisation (handles, first sizes)
  --overheads          launch_us and complete_us of each device from the gaps on its worker track
  --host-run FILE      host rates of codelets that no trace ran on a CPU, from the --json-out of
                       a CPU-only run (`--devices cpu`): its busy time less the traced codelets'
  --probe FILE         link latency from `conveyor probe --json-out` (pinned 4 KiB copies)
  --copy-in-stream     the devices copy in on a stream of their own (the CUDA driver)
  --free-syncs         a device's free (an eviction's) waits for its queued work (cudaFree)
  --rename cuda:0=h200 the platform id of a traced device (default: its name without ':')
"""
import argparse
import collections
import json
import re
import statistics
import sys

FLOPS = {"potrf": lambda b: b**3 / 3, "trsm": lambda b: b**3, "syrk": lambda b: b**3,
         "gemm": lambda b: 2 * b**3}
# Gaps between consecutive operations on a device's lane (kernels and copies in): shorter ones
# are the launch of work already queued, longer ones the device waiting for the host to release
# the next task (its wake-up on a completion, then the launch).
QUEUED_GAP_US = 20


def task_counts(tiles):
    t = tiles
    return {"potrf": t, "trsm": t * (t - 1) // 2, "syrk": t * (t - 1) // 2,
            "gemm": t * (t - 1) * (t - 2) // 6}


def load(path, block, skip_first):
    """The trace's events after the warm-up (and the first timed factorisation with skip_first),
    each X event tagged with the run's block; names of tracks and processes."""
    events = json.load(open(path))["traceEvents"]
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
            sys.exit(f"platform_from_trace: {path} has no tasks besides the warm-up")
        split = max(e["ts"] + e["dur"] for e in tasks[:10])
        timed = [e for e in spans if e["cat"] == "phase" and e.get("args", {}).get("timed")]
        if skip_first and len(timed) > 1:
            split = timed[1]["ts"]
        spans = [e for e in spans if e["ts"] >= split]
    for e in spans:  # pids differ between runs with different devices: tag by process name
        e["block"] = block
        e["proc"] = processes.get(e["pid"], str(e["pid"]))
    cores = sum(1 for (pid, _), n in names.items() if pid == 1 and n.startswith("cpu worker"))
    return spans, cores, set(processes.values())


def lane_gaps(spans, proc):
    """Gaps between consecutive kernels and copies in on device `proc` (us), inside the timed
    factorisations: the idle time before each operation."""
    gaps, end = [], None
    for e in spans:
        if e["proc"] != proc or e["cat"] == "phase" or e["name"] in ("copy d2h", "copy d2d"):
            continue
        if end is not None and e["ts"] > end:
            gaps.append(e["ts"] - end)
        end = max(end or e["ts"], e["ts"] + e["dur"])
    return gaps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--block", required=True,
                    help="tile size of the runs: one, or one per trace (comma-separated)")
    ap.add_argument("--elem-bytes", type=int, default=8, help="8 for double (default), 4 for single")
    ap.add_argument("--name", default="calibrated")
    ap.add_argument("--description", help="what the file models (default: the traces' names)")
    ap.add_argument("--memory-gb", type=float, default=8)
    ap.add_argument("--statistic", choices=("mean", "median"), default="mean")
    ap.add_argument("--skip-first", action="store_true")
    ap.add_argument("--overheads", action="store_true")
    ap.add_argument("--host-run")
    ap.add_argument("--probe")
    ap.add_argument("--copy-in-stream", action="store_true")
    ap.add_argument("--free-syncs", action="store_true")
    ap.add_argument("--rename", action="append", default=[], metavar="TRACE_NAME=ID",
                    help="the platform id of a traced device, e.g. cuda:0=h200 (default: cuda0)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    blocks = [int(b) for b in a.block.split(",")]
    if len(blocks) == 1:
        blocks *= len(a.traces)
    if len(blocks) != len(a.traces):
        sys.exit("platform_from_trace: give one --block, or one per trace")

    spans, per_trace, processes, cores = [], [], set(), 1
    for path, block in zip(a.traces, blocks):
        s, c, p = load(path, block, a.skip_first)
        spans += s
        per_trace.append(s)
        processes |= p
        cores = max(cores, c)

    # (process name, codelet, block) -> task durations (us); the process name, not its pid, so
    # that runs with different device lists pool by device.
    durations = collections.defaultdict(list)
    copy_us = collections.defaultdict(float)  # (process, kind) -> us
    copy_bytes = collections.defaultdict(float)
    copies = collections.defaultdict(int)
    copy_rates = collections.defaultdict(list)  # (process, kind) -> bytes / us of each copy
    for e in spans:
        proc = e["proc"]
        if e["cat"] == "task" and e["name"] in FLOPS:  # not the MPI layer's sends and receives
            durations[(proc, e["name"], e["block"])].append(e["dur"])
        elif e["cat"] == "transfer":
            copy_us[(proc, e["name"])] += e["dur"]
            copy_bytes[(proc, e["name"])] += e["block"] ** 2 * a.elem_bytes
            copies[(proc, e["name"])] += 1
            if e["dur"] > 0:
                copy_rates[(proc, e["name"])].append(e["block"] ** 2 * a.elem_bytes / e["dur"])

    def seconds(ds):
        return (statistics.median(ds) if a.statistic == "median" else sum(ds) / len(ds)) * 1e-6

    def gflops(proc):
        points = collections.defaultdict(list)
        for (p, c, b), ds in sorted(durations.items(), key=lambda kv: kv[0][2]):
            if p == proc and seconds(ds) > 0:
                points[c].append([round(FLOPS[c](b)), round(FLOPS[c](b) / seconds(ds) / 1e9, 1)])
        return {c: ps[0][1] if len(ps) == 1 else ps for c, ps in sorted(points.items())}

    host = {"cores": cores, "gflops": gflops("host")}
    how = {}
    if a.host_run:
        host_from_run(a.host_run, host, durations, seconds, how)
    latency_us = 0.0
    if a.probe:
        latency_us = probe_latency(a.probe)
        how["latency"] = f"pinned 4 KiB copy of {a.probe}: {latency_us:.1f} us"

    platform = {"name": a.name, "description": a.description or
                f"Calibrated by scripts/platform_from_trace.py from {', '.join(a.traces)} "
                f"(tiles {a.block})", "host": host, "devices": [], "links": []}
    # pid 1 is the host; a simulated run's trace also has a "links" process (not a device).
    for proc in sorted(processes - {"host", "links", "cholesky"}):
        renamed = dict(r.split("=", 1) for r in a.rename)
        dev = renamed.get(proc, proc.replace(":", ""))  # opencl:0 -> opencl0 (ids are id:k)
        g = gflops(proc)
        if not g:
            continue  # a device that ran nothing (a PoCL device beside a GPU)
        spec = {"id": dev, "memory_gb": a.memory_gb, "gflops": g}
        if a.overheads:
            gaps = [g for s in per_trace for g in lane_gaps(s, proc)]
            queued = [g for g in gaps if g <= QUEUED_GAP_US]
            waited = [g for g in gaps if g > QUEUED_GAP_US]
            launch = statistics.median(queued) if queued else 0.0
            complete = max(statistics.median(waited) - launch, 0.0) if waited else 0.0
            spec["launch_us"] = round(launch, 1)
            spec["complete_us"] = round(complete, 1)
            how[dev] = (f"{len(queued)} gaps <= {QUEUED_GAP_US} us between queued operations "
                        f"(median {launch:.1f} us = launch_us) and {len(waited)} longer ones "
                        f"(median {statistics.median(waited) if waited else 0:.1f} us = launch_us + "
                        f"complete_us)")
        if a.copy_in_stream:
            spec["copy_in_stream"] = True
        if a.free_syncs:
            spec["free_syncs"] = True
        platform["devices"].append(spec)

        def gbs(kind):
            if a.statistic == "median" and copy_rates[(proc, kind)]:
                # The median copy's rate, its latency left out.
                rate = statistics.median(copy_rates[(proc, kind)])  # bytes / us
                tile = copy_bytes[(proc, kind)] / copies[(proc, kind)]
                return round(tile / (tile / rate - latency_us) / 1e3, 2)
            us = copy_us[(proc, kind)] - copies[(proc, kind)] * latency_us
            return round(copy_bytes[(proc, kind)] / (us * 1e-6) / 1e9, 2) if us > 0 else 100.0

        link = {"between": ["host", dev + ":0"], "gbs": [gbs("copy h2d"), gbs("copy d2h")]}
        if latency_us:
            link["latency_us"] = round(latency_us, 1)
        platform["links"].append(link)
    text = json.dumps(platform, indent=2)
    # A rate's [flops, GFLOP/s] points and a link's two bandwidths on one line each.
    text = re.sub(r"\[\s+([-0-9.e+]+),\s+([-0-9.e+]+)\s+\]", r"[\1, \2]", text)
    text = re.sub(r"\[\s+(\[[^\[\]]*\](?:,\s+\[[^\[\]]*\])*)\s+\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    open(a.output, "w").write(text + "\n")
    print(f"wrote {a.output}: host {cores} cores {platform['host']['gflops']}; devices "
          f"{[(d['id'], d.get('gflops')) for d in platform['devices']]}; links "
          f"{[l['gbs'] for l in platform['links']]}")
    for k, v in how.items():
        print(f"  {k}: {v}")


def host_from_run(path, host, durations, seconds, how):
    """Host rates of the codelets no trace ran on a CPU, from a CPU-only run's --json-out: its
    workers' busy time, less the traced codelets' time at their traced rates, over the missing
    codelets' flops (one rate for them all)."""
    row = json.load(open(path))["results"][0]
    block, tiles = row["block"], row["tiles"]
    counts = task_counts(tiles)
    busy = sum(w["busy_s"] for w in row["workers"] if w["name"].startswith("cpu"))
    known = {c: seconds(ds) for (p, c, b), ds in durations.items() if p == "host" and b == block}
    rest_s = busy - sum(counts[c] * s for c, s in known.items())
    missing = [c for c in FLOPS if c not in known]
    flops = sum(counts[c] * FLOPS[c](block) for c in missing)
    if not missing or rest_s <= 0:
        return
    rate = round(flops / rest_s / 1e9, 1)
    for c in missing:
        host["gflops"][c] = rate
    host["gflops"] = dict(sorted(host["gflops"].items()))
    how["host"] = (f"{', '.join(missing)}: {rate} GFLOP/s = their flops over the busy time of "
                   f"{path} ({busy:.2f} s on {len(row['workers'])} workers, block {block}) less "
                   f"the traced codelets' ({', '.join(sorted(known))})")


def probe_latency(path):
    """The time of a pinned 4 KiB copy (both directions' mean) of a `conveyor probe` document."""
    rows = [r for r in json.load(open(path))["results"] if r.get("kind") == "bandwidth" and
            r.get("model") == "pinned" and r.get("bytes") == 4096 and
            r.get("direction") in ("h2d", "d2h")]
    return statistics.mean(r["best_s"] for r in rows) * 1e6 if rows else 0.0


if __name__ == "__main__":
    main()
