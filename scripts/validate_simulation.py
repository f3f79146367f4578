#!/usr/bin/env python3
"""Simulated vs measured Cholesky (docs/results.md, "Simulated platforms: validation").

For each block size: a real run at the smallest n with --trace calibrates a platform file
(scripts/platform_from_trace.py); then every n is run for real (median of --repeat) and on the
calibrated platform, and the times and copy counts are compared. Prints a markdown table.

  scripts/validate_simulation.py --conveyor build/release/tools/conveyor/conveyor \
      --devices cpu,opencl:0 --machine "vm-epyc2: ..." --blocks 256,512 --ns 2048,3072,4096

With --platform and --measured, no real run: each measured document (the --json-out of a real
`conveyor cholesky` run, e.g. on the machine a twin models) is run again on the platform with the
same options (n, block, precision, devices, device memory), and the fastest real time stands
beside the simulated one (docs/simulation.md, "The H200 node twin"):

  scripts/validate_simulation.py --conveyor build/release/tools/conveyor/conveyor \
      --platform platforms/h200-node.json --measured chol-cuda-4096.json chol-all-32768.json
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


def twin_args(options):
    """The simulated run of a measured run: its options, on the platform."""
    args = ["--n", str(options["n"]), "--precision", options["precision"],
            "--devices", options["devices"]]
    if options.get("block") not in (None, "auto"):
        args += ["--block", str(options["block"])]
    if options.get("device_memory"):
        args += ["--device-memory", options["device_memory"]]
    return args


def compare(a):
    print(f"Platform {a.platform}; real = the fastest of the measured run's repeats; the twin "
          f"is deterministic.\n")
    print("| run | options | real s | real GFLOP/s | twin s | twin GFLOP/s | twin/real - 1 |")
    print("|---|---|---|---|---|---|---|")
    errors = []
    for path in a.measured:
        doc = json.load(open(path))
        real = doc["results"][0]
        args = twin_args(doc["options"])
        sim = run(a.conveyor, [*args, "--platform", a.platform])[0]
        err = sim["time_s"] / real["time_s"] - 1
        errors.append(abs(err))
        print(f"| {os.path.basename(path)} | `{' '.join(args)}` (block {real['block']}) "
              f"| {real['time_s']:.4f} | {real['gflops']:.0f} | {sim['time_s']:.4f} "
              f"| {sim['gflops']:.0f} | {err * 100:+.1f} % |")
    print(f"\nLargest |twin/real - 1| = {max(errors) * 100:.1f} %")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conveyor", required=True)
    ap.add_argument("--platform", help="with --measured: the platform to compare with")
    ap.add_argument("--measured", nargs="+", help="--json-out documents of real cholesky runs")
    ap.add_argument("--devices", default="cpu,opencl:0")
    ap.add_argument("--machine")
    ap.add_argument("--blocks", default="256,512")
    ap.add_argument("--ns", default="2048,3072,4096")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if a.measured or a.platform:
        if not (a.measured and a.platform):
            sys.exit("validate_simulation: --platform and --measured go together")
        compare(a)
        return
    if not a.machine:
        sys.exit("validate_simulation: --machine is required for a calibration run")
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
