#!/usr/bin/env python3
"""Calibrates a simulated cluster of this machine and checks it against real mpirun runs
(docs/simulated-clusters.md, "Validation").

Calibration, for each rank count R (ranks share this host, as mpirun puts them here):
  * the node: a real `mpirun -np R conveyor cholesky --grid PxQ --trace --repeat K` at the
    calibration size; every rank's task events give the per-codelet GFLOP/s of a rank's workers as
    they run beside the other ranks (scripts/platform_from_trace.py), rank 0's worker tracks the
    cores per node;
  * the network: `mpirun -np 2 bench_distributed_pingpong` with 8-byte and large messages: latency
    = half the raw MPI round trip, bandwidth from the large messages, the layer's added time per
    message split between the two sides as overhead_us; a crossbar (one host).
Validation: the same command at other sizes, real (best of --repeat) and simulated side by side:
message counts and bytes must be equal, and the times are compared.

  scripts/validate_cluster.py --build build/release --grids 1x2,2x1,2x2 --ns 3072,4096 \\
      --calibrate-n 2048 --block 256 --out-dir cluster-vm
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"validate_cluster: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}{p.stdout}")
    return p.stdout


def mpirun(ranks, args):
    return ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)] + args


def ranks_of(grid):
    p, q = grid.split("x")
    return int(p) * int(q)


def row(text):
    return json.loads(text)["results"][0]


def pingpong(bench, size):
    return row(run(mpirun(2, [bench, "--json", "--bytes", str(size), "--rounds", "2000"])))


def network(bench):
    small, large = pingpong(bench, 8), pingpong(bench, 4 << 20)
    latency_us = small["raw_rtt_us"] / 2
    seconds = (large["raw_rtt_us"] / 2 - latency_us) * 1e-6
    return {"topology": "crossbar", "nic_gbs": round((4 << 20) / seconds / 1e9, 3),
            "latency_us": round(latency_us, 3),
            "overhead_us": round(max(small["added_per_message_us"], 0) / 2, 3),
            "eager_bytes": 4096}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/release", help="the build tree (default %(default)s)")
    ap.add_argument("--grids", default="1x2,2x1,2x2", help="process grids (default %(default)s)")
    ap.add_argument("--ns", default="3072,4096", help="matrix orders to validate")
    ap.add_argument("--calibrate-n", type=int, default=2048, help="order of the calibration run")
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3, help="real runs per point (the best counts)")
    ap.add_argument("--machine", default=os.uname().nodename, help="name for the files and table")
    ap.add_argument("--out-dir", required=True, help="where the node and cluster files go")
    a = ap.parse_args()
    conveyor = os.path.join(a.build, "tools/conveyor/conveyor")
    bench = os.path.join(a.build, "bench/bench_distributed_pingpong")
    os.makedirs(a.out_dir, exist_ok=True)

    net = network(bench)
    print(f"network (ping-pong on {a.machine}): {net}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for grid in a.grids.split(","):
            ranks = ranks_of(grid)
            common = ["cholesky", "--block", str(a.block), "--grid", grid, "--json"]
            trace = os.path.join(tmp, f"{grid}.json")
            # --repeat factorisations in one trace: the rates average over them (one run's vary
            # by up to 30 % on a VM).
            run(mpirun(ranks, [conveyor] + common + ["--n", str(a.calibrate_n), "--trace", trace,
                                                     "--repeat", str(a.repeat)]))
            node = os.path.join(a.out_dir, f"node-{a.machine}-{grid}.json")
            run([sys.executable, os.path.join(HERE, "platform_from_trace.py"), trace,
                 "--block", str(a.block), "--name", f"{a.machine}, one rank of {grid}", "-o", node])
            with open(node) as f:
                cores = json.load(f)["host"]["cores"]
            cluster = os.path.join(a.out_dir, f"cluster-{a.machine}-{grid}.json")
            with open(cluster, "w") as f:
                json.dump({"name": f"{a.machine} x {ranks} ranks",
                           "description": f"Calibrated on {a.machine} by scripts/validate_cluster.py: "
                                          f"the node from a {ranks}-rank run at n = {a.calibrate_n}, "
                                          "the network from bench_distributed_pingpong "
                                          "(ranks on one host: shared memory)",
                           "nodes": ranks, "node": os.path.basename(node), "network": net},
                          f, indent=2)
            for n in [int(x) for x in a.ns.split(",")]:
                args = common + ["--n", str(n), "--cpus", str(cores)]
                real = min((row(run(mpirun(ranks, [conveyor] + args))) for _ in range(a.repeat)),
                           key=lambda r: r["time_s"])
                sim = row(run([conveyor] + args + ["--platform", cluster]))
                rows.append((grid, n, real, sim))
                print(f"{grid} n={n}: real {real['time_s']:.3f} s, simulated {sim['time_s']:.3f} s",
                      flush=True)

    print(f"\n| grid | n | messages real / sim | MB real / sim | real s | simulated s | "
          f"sim / real |\n|---|---|---|---|---|---|---|")
    worst = 0
    for grid, n, real, sim in rows:
        ratio = sim["time_s"] / real["time_s"]
        worst = max(worst, abs(ratio - 1))
        print(f"| {grid} | {n} | {real['messages']} / {sim['messages']} | "
              f"{real['bytes'] / 1e6:.1f} / {sim['bytes'] / 1e6:.1f} | {real['time_s']:.3f} | "
              f"{sim['time_s']:.3f} | {ratio:.3f} |")
    same = all(r["messages"] == s["messages"] and r["bytes"] == s["bytes"] for _, _, r, s in rows)
    print(f"\nmessages and bytes equal: {same}; largest time difference {100 * worst:.1f} %")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
