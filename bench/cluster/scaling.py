#!/usr/bin/env python3
"""Scaling study of the distributed Cholesky (or QR: --app qr) on simulated clusters.

Runs `conveyor cholesky --platform CLUSTER.json --grid PxQ --json` (every rank's real runtime in
one process, on a virtual clock, network modelled; kernels not run) on 1, 4, 16, 64 and 256 nodes
(square grids), for two kinds of node:

  gpu  platforms/cluster-64x4xV100.json: 4 V100 + 12 cores per node, 2:1 fat tree, --sched model
  cpu  platforms/cluster-64xcpu.json:    2 x 16 cores per node, non-blocking fat tree

and two kinds of scaling:

  strong  one matrix (gpu n=65536, cpu n=32768, block 1024) over more nodes;
          efficiency = (R0 T0) / (R T), R0 the smallest node count (1): T1 / (R T_R)
  weak    n = n1 sqrt(R) rounded to the block (n1 = 8192): each node keeps the same memory;
          efficiency = (GFLOP/s per node) / (the same at R0)

The shipped cluster files have 64 nodes: larger runs (and the diagnostics' variants) use a copy
written to a fresh temporary directory (removed at the end) with "nodes" raised and the "node"
path made absolute; the output says which runs did.

--diagnose adds, at the 64-node strong point, the runs and numbers that tell where and why it
stops scaling: the same run on changed networks (10x faster: bandwidth x10 and latency / 10;
bandwidth only; latency only; a crossbar instead of the fat tree; 100x, as if free) and, for
nodes with PCIe links, a free network plus node links x10; owner-computes imbalance (max / mean
tasks and bytes per rank); a critical-path estimate from the node model; and a trace of the run,
from which each message's wait is measured and replayed against simple queueing models (the
owner's NIC alone, the receiver's NIC alone, both). See the printed notes for how to read them.

Wall time on a 2-core machine: about 6 minutes for the full study with --diagnose (the two
256-node weak points are 4 of them); --quick (1, 4, 16 nodes, small n) takes seconds, for CI.

  bench/cluster/scaling.py                       # full study, figure in docs/figures
  bench/cluster/scaling.py --diagnose            # + where it stops scaling and why
  bench/cluster/scaling.py --quick --out-dir X   # CI-sized; figure goes to X
  bench/cluster/scaling.py --app qr --studies cpu --nodes 1,4,16,64   # the tile QR (flat tree)
  bench/cluster/scaling.py --app qr --app-flags=--tree ...             # QR's reduction tree

With --app qr the same studies run `conveyor qr` (4/3 n^3 flop; no closed form of its messages,
so that check is Cholesky's only), and the figure goes to docs/figures/cluster-scaling-qr.png.
"""
import argparse
import bisect
import collections
import copy
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

APP_TITLE = {"cholesky": "Cholesky", "qr": "tile QR"}
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Per study: cluster file, extra flags, strong n, weak n1. Block 1024 everywhere: 8 MB tiles, so
# both studies send the same messages; at b=1024 one CPU node still reaches ~88% of its GEMM peak
# (b=512: 96%) with 4x fewer tasks and messages, which keeps the 256-node runs to minutes here.
# Strong n: 65536 (32 GiB, t=64 tiles a side) fills a GPU node's 4 devices at 1 node; CPU nodes
# are ~15x slower, so n=32768 (t=32) keeps the 1-node point at a similar virtual time. Weak n1=8192
# (512 MiB a node) makes the 256-node matrix n=131072 (t=128: 357k tasks); n1=16384 would be
# 2.8M tasks there, ~10x the wall time. The small 1-node matrix (120 tasks) under-fills a node,
# which flatters the weak efficiency of the larger runs rather than hurting it.
STUDIES = {
    "gpu": dict(cluster="platforms/cluster-64x4xV100.json", flags=["--sched", "model"], on_device=True,
                strong_n=65536, weak_n1=8192, block=1024, quick=(16384, 4096)),
    "cpu": dict(cluster="platforms/cluster-64xcpu.json", flags=[], on_device=False,
                strong_n=32768, weak_n1=8192, block=1024, quick=(8192, 2048)),
}


class Runner:
    """Runs conveyor, writes temporary cluster/node files, keeps the wall time spent."""

    def __init__(self, conveyor, tmp, app="cholesky", app_flags=()):
        self.conveyor, self.tmp, self.wall, self.notes = conveyor, tmp, 0.0, []
        self.app, self.app_flags = app, list(app_flags)

    def cluster(self, base, nodes, tag="", net=None, node_edit=None):
        """The shipped file when it is big enough and unchanged; else a temporary copy."""
        path = os.path.join(ROOT, base)
        spec = json.load(open(path))
        if nodes <= spec["nodes"] and not net and not node_edit:
            return base
        if nodes > spec["nodes"]:
            self.notes.append(f"{nodes} nodes: a copy of {base} with \"nodes\": {nodes}")
        spec["nodes"] = max(nodes, spec["nodes"])
        node = os.path.join(os.path.dirname(path), spec["node"])
        if node_edit:  # a changed copy of the node platform, next to the cluster copy
            n = json.load(open(node))
            node_edit(n)
            node = os.path.join(self.tmp, f"node{tag}.json")
            json.dump(n, open(node, "w"), indent=1)
        spec["node"] = os.path.abspath(node)
        if net:
            net(spec["network"])
        out = os.path.join(self.tmp, f"{os.path.basename(base)[:-5]}-{spec['nodes']}{tag}.json")
        json.dump(spec, open(out, "w"), indent=1)
        return out

    def run(self, study, n, nodes, cluster, trace=None):
        p = math.isqrt(nodes)
        cmd = [self.conveyor, self.app, "--n", str(n), "--block", str(study["block"]),
               "--platform", cluster, "--grid", f"{p}x{p}", "--json", *study["flags"],
               *self.app_flags]
        if trace:
            cmd += ["--trace", trace]
        t0 = time.time()
        res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.time() - t0
        self.wall += wall
        if res.returncode:
            sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
        row = json.loads(res.stdout)["results"][0]
        # The layer's real code decides the messages: they must be the closed form's (where the
        # app has one).
        if "closed_form_messages" in row and \
                (row["messages"], row["bytes"]) != (row["closed_form_messages"], row["closed_form_bytes"]):
            sys.exit(f"{' '.join(cmd)}: {row['messages']} messages / {row['bytes']} bytes, the "
                     f"closed form says {row['closed_form_messages']} / {row['closed_form_bytes']}")
        pr = row.pop("per_rank")
        stats = {}
        for k in ("tasks", "bytes_sent", "bytes_received", "messages_sent"):
            v = [r[k] for r in pr]
            stats[k + "_max"], stats[k + "_mean"] = max(v), sum(v) / len(v)
        return dict(nodes=nodes, grid=f"{p}x{p}", n=n, block=study["block"], time_s=row["time_s"],
                    gflops=row["gflops"], messages=row["messages"], bytes=row["bytes"],
                    devices=row["devices"], wall_s=round(wall, 2), **stats)


def efficiencies(rows, mode):
    """Strong: (R0 T0)/(R T); weak: GFLOP/s per node over the same at R0 (R0: fewest nodes)."""
    b = min(rows, key=lambda r: r["nodes"])
    for r in rows:
        if mode == "strong":
            r["speedup"] = b["time_s"] / r["time_s"]  # ideal: R / R0
            r["efficiency"] = r["speedup"] * b["nodes"] / r["nodes"]
        else:
            r["efficiency"] = (r["gflops"] / r["nodes"]) / (b["gflops"] / b["nodes"])


def table(rows):
    head = ("| nodes | grid | n | time_s | TFLOP/s | efficiency | messages | GB sent | "
            "tasks/rank max/mean |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
    return head + "".join(
        f"| {r['nodes']} | {r['grid']} | {r['n']} | {r['time_s']:.3f} | {r['gflops'] / 1e3:.2f} | "
        f"{r['efficiency']:.2f} | {r['messages']} | {r['bytes'] / 1e9:.1f} | "
        f"{r['tasks_max'] / r['tasks_mean']:.2f} |\n" for r in rows)


# --- diagnostics -----------------------------------------------------------------------------

def scale_net(f):
    """Bandwidths x f, latencies / f (the per-message software overhead is host time: kept)."""
    def edit(net):
        for k in ("nic_gbs", "link_gbs"):
            if k in net:
                net[k] *= f
        for k in ("latency_us", "hop_latency_us"):
            if k in net:
                net[k] /= f
    return edit


def crossbar(net):
    """Full bisection, same NICs: takes the fat tree's taper and uplinks out of the question."""
    net["topology"] = "crossbar"
    for k in ("link_gbs", "nodes_per_switch", "uplinks", "hop_latency_us", "dims"):
        net.pop(k, None)


def replay(sends, net):
    """Replays the traced sends (post time, src, dst, bytes) through queueing models of the NICs,
    each message ready at post + overhead + 2 latencies (rendezvous; receives are posted early)
    and lasting latency + bytes / nic. Returns the mean post->delivered time of each model:
      owner_nic: the sender's NIC alone, first come first served (the hypothesis: fan-out
                 of each panel tile to P+Q-2 readers serialised at its owner);
      receiver_nic: the receiver's NIC alone;
      route_append: both NICs held together, start when both are free after their last
                 reservation (gaps before it are never reused): the simulator's first
                 discipline, which this replay showed to chain delays across the machine;
      route_backfill: both NICs held together, but a message may use any common gap: the
                 simulator's discipline since (src/distributed/network.cpp Network::transfer,
                 first fit), crossbar routes.
    The post times come from the measured (already slowed) run, so these are first-order: the
    real run adds feedback (late messages post later sends late)."""
    lat, ov, bw = net["latency_us"] * 1e-6, net["overhead_us"] * 1e-6, net["nic_gbs"] * 1e9
    out = {}

    def fcfs(key):
        free, w = collections.defaultdict(float), []
        for t, s, d, b in sends:
            k = key(s, d)
            free[k] = max(t + ov + 2 * lat, free[k]) + lat + b / bw
            w.append(free[k] - t)
        return statistics.mean(w)
    out["owner_nic"] = fcfs(lambda s, d: s)
    out["receiver_nic"] = fcfs(lambda s, d: -1 - d)
    free, w = collections.defaultdict(float), []
    for t, s, d, b in sends:
        end = max(t + ov + 2 * lat, free[s], free[-1 - d]) + lat + b / bw
        free[s] = free[-1 - d] = end
        w.append(end - t)
    out["route_append"] = statistics.mean(w)
    busy, w = collections.defaultdict(list), []  # sorted (start, end) per NIC
    for t, s, d, b in sends:
        st, du = t + ov + 2 * lat, lat + b / bw
        moved = True
        while moved:  # slide to the end of any interval that overlaps [st, st + du)
            moved = False
            for k in (s, -1 - d):
                lst = busy[k]
                i = bisect.bisect_left(lst, (st,))
                for j in (i - 1, i):
                    if 0 <= j < len(lst) and lst[j][0] < st + du and lst[j][1] > st:
                        st, moved = lst[j][1], True
        for k in (s, -1 - d):
            bisect.insort(busy[k], (st, st + du))
        w.append(st + du - t)
    out["route_backfill"] = statistics.mean(w)
    return out


def traced_sends(path):
    """(post s, src rank, dst rank, bytes, post->delivered s) of every send in a conveyor trace:
    pid 1000 r + 900, thread 1 ("rank r sends"), events named "to D"."""
    ev = json.load(open(path))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    return sorted((e["ts"] * 1e-6, e["pid"] // 1000, int(e["name"].split()[-1]),
                   e["args"]["bytes"], e["dur"] * 1e-6) for e in ev
                  if e.get("ph") == "X" and e["pid"] % 1000 == 900 and e.get("tid") == 1)


def diagnose(name, study, runner, base, nodes, strong_rows, weak_rows):
    """Where the strong scaling stops at `nodes` and why: see the module docstring."""
    n, b = study["strong_n"], study["block"]
    spec = json.load(open(os.path.join(ROOT, study["cluster"])))
    node = json.load(open(os.path.join(ROOT, os.path.dirname(study["cluster"]), spec["node"])))
    net = spec["network"]
    variants = [("network 10x (bandwidth x10, latency /10)", dict(net=scale_net(10))),
                ("bandwidth x10 only", dict(net=lambda x: x.update(
                    {k: x[k] * 10 for k in ("nic_gbs", "link_gbs") if k in x}))),
                ("latency /10 only", dict(net=lambda x: x.update(
                    {k: x[k] / 10 for k in ("latency_us", "hop_latency_us") if k in x}))),
                ("crossbar (no fat tree), same NICs", dict(net=crossbar)),
                ("network 100x (as if free)", dict(net=scale_net(100)))]
    if node.get("links"):  # PCIe/UPI inside the node: the next limit once the network is free
        def links10(x):
            for link in x["links"]:
                link["gbs"] *= 10
        variants.append(("network 100x + node links (PCIe, UPI) x10",
                         dict(net=scale_net(100), node_edit=links10)))
    d = dict(study=name, nodes=nodes, n=n, base_time_s=base["time_s"], variants=[])
    for i, (label, kw) in enumerate(variants):
        r = runner.run(study, n, nodes, runner.cluster(study["cluster"], nodes, f"-{name}-v{i}", **kw))
        d["variants"].append(dict(variant=label, time_s=r["time_s"], gflops=r["gflops"],
                                  speedup=base["time_s"] / r["time_s"]))
        if node.get("links") and "node links" in label:  # the same node change at 1 node
            r1 = runner.run(study, n, 1, runner.cluster(study["cluster"], 1, f"-{name}-v{i}", **kw))
            d["variants"][-1]["one_node_time_s"] = r1["time_s"]

    # Imbalance of the owner-computes distribution.
    d["tasks_max_over_mean"] = base["tasks_max"] / base["tasks_mean"]
    d["bytes_sent_max_over_mean"] = base["bytes_sent_max"] / base["bytes_sent_mean"]
    d["bytes_received_max_over_mean"] = base["bytes_received_max"] / base["bytes_received_mean"]

    # Node-model estimates. One tile message: the longest route's latency + tile / NIC rate.
    p = math.isqrt(nodes)
    t = math.ceil(n / b)
    tile = b * b * 8
    hops = 3 if net.get("topology") == "fat-tree" and nodes > net.get("nodes_per_switch", nodes) else 1
    msg = (net["latency_us"] + (hops - 1) * net.get("hop_latency_us", 0)) * 1e-6 + tile / (net["nic_gbs"] * 1e9)
    gpus = study["on_device"]  # GPU nodes: potrf and trsm on one device; CPU: on one core
    rates = node["devices"][0]["gflops"] if gpus else node["host"]["gflops"]
    potrf, trsm, syrk = (b ** 3 / 3 / (rates["potrf"] * 1e9), b ** 3 / (rates["trsm"] * 1e9),
                         b ** 3 / (rates["syrk"] * 1e9))
    peak = (sum(dv["count"] * dv["gflops"]["gemm"] for dv in node["devices"]) if gpus else 0) \
        + node["host"]["cores"] * node["host"]["gflops"]["gemm"]
    d.update(steps=t, tile_message_s=msg, potrf_s=potrf, trsm_s=trsm, syrk_s=syrk,
             # the last step has no trsm, syrk or message: t potrf + (t - 1) (the rest)
             critical_path_s=t * potrf + (t - 1) * (trsm + msg),
             # the chain each step really waits for: potrf(k) -> trsm(k+1,k) -> syrk(k+1,k+1) ->
             # potrf(k+1), with a message after potrf and one after trsm (owners differ)
             critical_chain_s=t * potrf + (t - 1) * (trsm + syrk + 2 * msg),
             # the hypothesis: the panel tile's message waits behind its P+Q-2 point-to-point sends
             critical_chain_fanout_s=t * potrf + (t - 1) * (trsm + syrk + msg + (2 * p - 2) * msg),
             fanout_per_tile_s=(2 * p - 2) * msg,
             compute_floor_s=n ** 3 / 3 / (nodes * peak * 1e9),
             busiest_nic_s=base["bytes_sent_max"] / (net["nic_gbs"] * 1e9),
             busiest_nic_in_s=base["bytes_received_max"] / (net["nic_gbs"] * 1e9),
             network_gbs=base["bytes"] / base["time_s"] / 1e9,
             network_capacity_gbs=nodes * net["nic_gbs"])
    # Messages in flight on average: the sum of every message's own transfer time over the run.
    # A network of R NICs that overlaps transfers well keeps many in flight; about 1-2 whatever R
    # means the messages go one or two at a time, machine-wide.
    d["in_flight"] = {m: {r["nodes"]: r["messages"] * msg / r["time_s"] for r in rows if r["nodes"] > 1}
                      for m, rows in (("strong", strong_rows), ("weak", weak_rows))}

    # The trace: how long each message really took from post to delivery, and the replays.
    trace = os.path.join(runner.tmp, f"trace-{name}.json")
    runner.run(study, n, nodes, runner.cluster(study["cluster"], nodes), trace=trace)
    sends = traced_sends(trace)
    os.remove(trace)  # tens of MB
    d["sends"] = len(sends)
    d["send_wait_mean_s"] = statistics.mean(s[4] for s in sends)
    d["send_wait_median_s"] = statistics.median(s[4] for s in sends)
    d["replay_mean_s"] = replay([s[:4] for s in sends], net)
    return d


def diagnose_text(d):
    v = "\n".join(f"| {x['variant']}"
                  + (f" (1 node: {x['one_node_time_s']:.2f} s)" if "one_node_time_s" in x else "")
                  + f" | {x['time_s']:.3f} | {x['speedup']:.1f}x |" for x in d["variants"])
    r = d["replay_mean_s"]
    ms = lambda s: f"{s * 1e3:.1f} ms"
    return f"""
### {d['study']}: {d['nodes']} nodes, n={d['n']}, measured {d['base_time_s']:.3f} s

| variant | time_s | faster |
|---|---:|---:|
{v}

- imbalance (max/mean per rank): tasks {d['tasks_max_over_mean']:.2f}, bytes sent {d['bytes_sent_max_over_mean']:.2f}, bytes received {d['bytes_received_max_over_mean']:.2f}
- one tile message {ms(d['tile_message_s'])}; potrf {ms(d['potrf_s'])}, trsm {ms(d['trsm_s'])} (node model)
- critical path, t = {d['steps']} steps: t potrf + (t-1) (trsm + 1 message) = {d['critical_path_s']:.3f} s; the step chain t potrf + (t-1) (trsm + syrk {ms(d['syrk_s'])} + 2 messages) = {d['critical_chain_s']:.3f} s; the same with the panel message behind its whole fan-out of P+Q-2 (the hypothesis, {ms(d['fanout_per_tile_s'])} a tile) = {d['critical_chain_fanout_s']:.3f} s; compute at the nodes' GEMM peak {d['compute_floor_s']:.3f} s
- busiest rank's NIC: out {d['busiest_nic_s']:.3f} s, in {d['busiest_nic_in_s']:.3f} s of the {d['base_time_s']:.3f} s run; network carried {d['network_gbs']:.1f} GB/s of {d['network_capacity_gbs']:.0f} GB/s injection capacity
- messages in flight on average (sum of their own transfer times / run time) by node count: strong {', '.join(f'{k}: {x:.2f}' for k, x in d['in_flight']['strong'].items())}; weak {', '.join(f'{k}: {x:.2f}' for k, x in d['in_flight']['weak'].items())}
- traced sends: {d['sends']}, post -> delivered mean {ms(d['send_wait_mean_s'])}, median {ms(d['send_wait_median_s'])} (own transfer {ms(d['tile_message_s'])})
- replays of the same posts, mean post -> delivered: owner's NIC alone {ms(r['owner_nic'])}; receiver's NIC alone {ms(r['receiver_nic'])}; both NICs, append-only (the simulator's former discipline) {ms(r['route_append'])}; both NICs with backfill (the simulator's, first fit) {ms(r['route_backfill'])}
"""


def figure(results, path, diags, app="cholesky"):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: figure skipped")
        return None
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    xs = sorted({r["nodes"] for rows in results.values() for r in rows})
    a.plot(xs, [x / xs[0] for x in xs], "k--", label="ideal")
    for (name, mode), rows in results.items():
        ax, y = (a, "speedup") if mode == "strong" else (b, "efficiency")
        ax.plot([r["nodes"] for r in rows], [r[y] for r in rows], "o-",
                label=f"{name} nodes, n={rows[0]['n']}" if mode == "strong" else f"{name} nodes, n1={rows[0]['n']}")
    for d in diags:  # where the strong point would be with a free network (--diagnose)
        t1 = min(results[(d["study"], "strong")], key=lambda r: r["nodes"])
        free = next(v for v in d["variants"] if v["variant"].startswith("network 100x"))
        a.plot([d["nodes"]], [t1["time_s"] / free["time_s"]], "*", ms=11,
               color="C0" if d["study"] == "gpu" else "C1", label=f"{d['study']}, network 100x")
    a.set(xscale="log", yscale="log", xlabel="nodes", ylabel="speedup vs fewest nodes",
          title="strong scaling (fixed n)")
    b.set(xscale="log", xlabel="nodes", ylabel="GFLOP/s per node / the same at 1 node",
          title="weak scaling efficiency (n ~ sqrt(nodes))", ylim=(0, 1.05))
    for ax in (a, b):
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Simulated-cluster {APP_TITLE[app]}, block 1024 (virtual time)")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--conveyor", default="build/release/tools/conveyor/conveyor",
                    help="conveyor binary, relative to the repository root or absolute")
    ap.add_argument("--out-dir", default="build/cluster-scaling",
                    help="where cluster-scaling.md and .json go (default build/cluster-scaling)")
    ap.add_argument("--figure", help="figure path (default docs/figures/cluster-scaling.png; "
                    "with --quick, OUT_DIR/cluster-scaling.png so CI leaves the docs alone)")
    ap.add_argument("--nodes", help="node counts, squares (default 1,4,16,64,256; --quick: 1,4,16)")
    ap.add_argument("--studies", default="gpu,cpu", help="gpu, cpu or both (default)")
    ap.add_argument("--quick", action="store_true", help="CI size: nodes 1,4,16 and small matrices")
    ap.add_argument("--app", choices=sorted(APP_TITLE), default="cholesky",
                    help="the distributed app studied (default cholesky)")
    ap.add_argument("--app-flags", default="", help="more options for the app, e.g. --app-flags=--tree")
    ap.add_argument("--diagnose", action="store_true",
                    help="add the diagnostics of where and why it stops scaling (at --diagnose-nodes)")
    ap.add_argument("--diagnose-nodes", type=int, default=64, help="node count diagnosed (default 64; "
                    "the largest run below it when absent)")
    a = ap.parse_args()
    nodes = [int(x) for x in (a.nodes or ("1,4,16" if a.quick else "1,4,16,64,256")).split(",")]
    if any(math.isqrt(x) ** 2 != x for x in nodes):
        ap.error("--nodes: square node counts only (square grids)")
    conveyor = os.path.join(ROOT, a.conveyor)
    if not os.access(conveyor, os.X_OK):
        sys.exit(f"{conveyor}: not found (build it: make release)")
    out_dir = os.path.join(ROOT, a.out_dir) if not os.path.isabs(a.out_dir) else a.out_dir
    os.makedirs(out_dir, exist_ok=True)
    stem = "cluster-scaling" + ("" if a.app == "cholesky" else "-" + a.app)
    fig_path = a.figure or (os.path.join(out_dir, stem + ".png") if a.quick
                            else os.path.join(ROOT, "docs/figures", stem + ".png"))

    tmp = tempfile.mkdtemp(prefix="cluster-scaling-")
    runner = Runner(conveyor, tmp, a.app, a.app_flags.split() if a.app_flags else ())
    results, diags, md = {}, [], [f"# Simulated-cluster {APP_TITLE[a.app]} scaling\n"]
    try:
        for name in a.studies.split(","):
            s = dict(STUDIES[name])
            if a.quick:
                s["strong_n"], s["weak_n1"] = s["quick"]
            for mode in ("strong", "weak"):
                rows = []
                for r in nodes:
                    n = s["strong_n"] if mode == "strong" else \
                        max(s["block"], round(s["weak_n1"] * math.sqrt(r) / s["block"]) * s["block"])
                    rows.append(runner.run(s, n, r, runner.cluster(s["cluster"], r)))
                    print(f"{name} {mode} {r:>3} nodes n={n}: {rows[-1]['time_s']:.3f} s virtual, "
                          f"{rows[-1]['wall_s']:.1f} s wall", flush=True)
                efficiencies(rows, mode)
                results[(name, mode)] = rows
                md.append(f"## {name} nodes ({s['cluster']}), {mode} scaling, block {s['block']}"
                          f"{' (' + ' '.join(s['flags']) + ')' if s['flags'] else ''}\n\n{table(rows)}")
                print(md[-1])
            if a.diagnose:
                strong = results[(name, "strong")]
                at = max((r for r in strong if r["nodes"] <= a.diagnose_nodes), key=lambda r: r["nodes"])
                diags.append(diagnose(name, s, runner, at, at["nodes"], strong, results[(name, "weak")]))
                md.append(diagnose_text(diags[-1]))
                print(md[-1], flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    notes = sorted(set(runner.notes))
    if notes:
        md.append("The shipped cluster files have 64 nodes; these runs used temporary copies (node path "
                  "made absolute; the diagnostics' changed networks too), since removed:\n\n"
                  + "".join(f"- {x}\n" for x in notes))
    md.append(f"\nconveyor wall time: {runner.wall:.0f} s\n")
    fig = figure(results, fig_path, diags, a.app)
    if fig:
        md.append(f"Figure: {os.path.relpath(fig, ROOT)}\n")
    open(os.path.join(out_dir, "cluster-scaling.md"), "w").write("\n".join(md))
    json.dump(dict(rows=[dict(study=k[0], mode=k[1], **r) for k, rows in results.items() for r in rows],
                   diagnostics=diags, notes=notes, conveyor_wall_s=runner.wall),
              open(os.path.join(out_dir, "cluster-scaling.json"), "w"), indent=1)
    print("\n".join(md[-3:]))
    print(f"wrote {out_dir}/cluster-scaling.md, cluster-scaling.json" + (f", {fig}" if fig else ""))


if __name__ == "__main__":
    main()
