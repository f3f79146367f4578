#!/usr/bin/env python3
"""scripts/platform_from_trace.py on a measured trace (tests/data/h200_cholesky_4096_trace.json:
`conveyor cholesky --n 4096 --precision d --devices cuda:0 --repeat 3 --trace`, one NVIDIA H200
with a 16-core Xeon host, CUDA 13.0, 2026-11-27): the per-task costs come from the gaps on the GPU
track, and the platform it writes runs the same command within 10 % of the measured 0.007516 s.

  platform_from_trace_test.py --conveyor build/release/tools/conveyor/conveyor
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "scripts", "platform_from_trace.py")
TRACE = os.path.join(HERE, "data", "h200_cholesky_4096_trace.json")
MEASURED_S = 0.007516  # the run's fastest factorisation (its --json-out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conveyor", required=True)
    a = ap.parse_args()
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="conveyor_pft_") as tmp:
        out = os.path.join(tmp, "twin.json")
        subprocess.run([sys.executable, SCRIPT, TRACE, "--block", "1024", "--statistic", "median",
                        "--skip-first", "--overheads", "--copy-in-stream", "--rename",
                        "cuda:0=h200", "-o", out], check=True, capture_output=True, text=True)
        platform = json.load(open(out))
        [device] = platform["devices"]
        check(device["id"] == "h200", f"renamed device: {device['id']}")
        # Queued operations follow each other 2.5 us apart on the GPU track; a task released by
        # the host after its predecessor waits ~86 us (10 such gaps in the two later runs).
        check(device["launch_us"] == 2.5, f"launch_us {device['launch_us']}")
        check(device["complete_us"] == 83.9, f"complete_us {device['complete_us']}")
        check(device["copy_in_stream"] is True, "copy_in_stream")
        check(40000 < device["gflops"]["gemm"] < 50000, f"gemm {device['gflops']['gemm']}")
        check(platform["host"]["gflops"] == {}, "no CPU tasks in a cuda:0 run")
        h2d, d2h = platform["links"][0]["gbs"]
        check(45 < h2d < 55 and 45 < d2h < 55, f"link {h2d}, {d2h}")
        # As the measured run was: its tile, and each task's dependents released by the host.
        run = subprocess.run([a.conveyor, "cholesky", "--n", "4096", "--precision", "d",
                              "--devices", "cuda:0", "--block", "1024", "--run-ahead", "0",
                              "--platform", out, "--json"],
                             capture_output=True, text=True)
        check(run.returncode == 0, f"twin run: {run.stderr}")
        if run.returncode == 0:
            simulated = json.loads(run.stdout)["results"][0]["time_s"]
            check(abs(simulated / MEASURED_S - 1) < 0.10,
                  f"twin {simulated:.6f} s against measured {MEASURED_S} s")
    for f in failures:
        print("FAILED:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
