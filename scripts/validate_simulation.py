#!/usr/bin/env python3
"""Simulated vs measured Cholesky (docs/results.md, "Simulated platforms: validation").

For each block size: a real run at the smallest n with --trace calibrates a platform file
(scripts/platform_from_trace.py); then every n is run for real (median of --repeat) and on the
calibrated platform, and the times and copy counts are compared. Prints a markdown table.

  scripts/validate_simulation.py --conveyor build/release/tools/conveyor/conveyor \
      --devices cpu,opencl:0 --machine "vm-epyc2: ..." --blocks 256,512 --ns 2048,3072,4096
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(conveyor, args):
    out = subprocess.run([conveyor, "cholesky", *args, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["results"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conveyor", required=True)
    ap.add_argument("--devices", default="cpu,opencl:0")
    ap.add_argument("--machine", required=True)
    ap.add_argument("--blocks", default="256,512")
    ap.add_argument("--ns", default="2048,3072,4096")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="conveyor_validate_")
    rows = []
    for block in map(int, a.blocks.split(",")):
        ns = [n for n in map(int, a.ns.split(",")) if n % block == 0]
        trace = os.path.join(tmp, f"calib_{block}.json")
        platform = os.path.join(tmp, f"platform_{block}.json")
        common = ["--block", str(block), "--offload", "gemm"]
        # Rates averaged over --repeat factorisations (all in the trace): under a shared machine's
        # load one run is too noisy to calibrate from.
        run(a.conveyor, ["--n", str(ns[0]), *common, "--devices", a.devices, "--trace", trace,
                         "--repeat", str(a.repeat)])
        subprocess.run([sys.executable, os.path.join(HERE, "platform_from_trace.py"), trace,
                        "--block", str(block), "--name", "calibrated", "-o", platform],
                       check=True, capture_output=True)
        for n in ns:
            load = os.getloadavg()[0]
            real = run(a.conveyor, ["--n", str(n), *common, "--devices", a.devices,
                                    "--repeat", str(a.repeat)])[0]
            sim = run(a.conveyor, ["--n", str(n), *common, "--platform", platform,
                                   "--gpus", "1"])[0]
            rows.append((n, block, n == ns[0], real, sim, load))
            print(f"n {n} block {block}: measured {real['median_time_s']:.3f} s, simulated "
                  f"{sim['time_s']:.3f} s", file=sys.stderr)
    print(f"Machine: {a.machine}; devices {a.devices}; gemm offloaded; measured = median of "
          f"{a.repeat}; platform calibrated per block size from a traced run ({a.repeat} factorisations) at the smallest n.\n")
    print("| n | block | measured s | simulated s | sim/measured | H2D meas/sim | D2H meas/sim "
          "| load (1-min) |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for n, block, calib, real, sim, load in rows:
        r = sim["time_s"] / real["median_time_s"]
        ratios.append(abs(r - 1))
        same = "=" if (real["h2d_copies"], real["d2h_copies"]) == (sim["h2d_copies"],
                                                                     sim["d2h_copies"]) else "DIFFER"
        print(f"| {n}{' (calibration)' if calib else ''} | {block} | {real['median_time_s']:.3f} "
              f"| {sim['time_s']:.3f} | {r:.3f} | {real['h2d_copies']}/{sim['h2d_copies']} "
              f"| {real['d2h_copies']}/{sim['d2h_copies']} {same} | {load:.1f} |")
    print(f"\nMedian |sim/measured - 1| = {statistics.median(ratios) * 100:.1f} %")


if __name__ == "__main__":
    main()
