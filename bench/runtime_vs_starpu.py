#!/usr/bin/env python3
"""Per-task overhead of the Conveyor runtime next to StarPU's, in one run on one machine.

Runs bench_runtime_overhead and StarPU's tasks_overhead / async_tasks_overhead (Debian package
starpu-examples) with the same number of empty tasks and 0, 1 and 4 data per task, alternating the
programs, and prints the median microseconds per task (submission + execution) and the ratio
Conveyor / StarPU (below 1: Conveyor is cheaper; the target is at most 0.5).

  bench/runtime_vs_starpu.py --conveyor build/release/bench/bench_runtime_overhead -i 20000
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

STARPU_DIR = "/usr/lib/x86_64-linux-gnu/starpu/examples"


def per_task_us(command, env):
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({out.returncode}): {out.stderr.strip()}")
    match = re.search(r"^Per task: ([0-9.]+) usecs", out.stdout + out.stderr, re.M)
    if not match:
        raise RuntimeError(f"no 'Per task' line in the output of {command[0]}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conveyor", default="build/release/bench/bench_runtime_overhead")
    parser.add_argument("--starpu-dir", default=STARPU_DIR)
    parser.add_argument("-i", "--tasks", type=int, default=20000)
    parser.add_argument("-r", "--repeat", type=int, default=5, help="runs of each program")
    parser.add_argument("-b", "--buffers", default="0,1,4", help="data per task, comma-separated")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if args.tasks < 1 or args.repeat < 1:
        print("error: --tasks and --repeat must be >= 1", file=sys.stderr)
        return 2
    peers = {name: os.path.join(args.starpu_dir, name)
             for name in ("tasks_overhead", "async_tasks_overhead")}
    for path in [args.conveyor, *peers.values()]:
        if not os.access(path, os.X_OK):
            print(f"error: {path} not found (build bench_runtime_overhead; apt-get install "
                  "starpu-examples)", file=sys.stderr)
            return 2
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", STARPU_SILENT="1")
    rows = []
    for buffers in [int(b) for b in args.buffers.split(",")]:
        times = {"conveyor": [], **{name: [] for name in peers}}
        for _ in range(args.repeat):  # alternate so that drifts hit every program alike
            times["conveyor"].append(per_task_us(
                [args.conveyor, "-i", str(args.tasks), "-b", str(buffers)], env))
            for name, path in peers.items():
                times[name].append(per_task_us([path, "-i", str(args.tasks), "-b", str(buffers)],
                                               env))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append({"buffers": buffers, "tasks": args.tasks,
                     "conveyor_us_per_task": med["conveyor"],
                     "starpu_tasks_overhead_us_per_task": med["tasks_overhead"],
                     "starpu_async_tasks_overhead_us_per_task": med["async_tasks_overhead"],
                     "ratio_vs_tasks_overhead": med["conveyor"] / med["tasks_overhead"],
                     "ratio_vs_async_tasks_overhead": med["conveyor"] / med["async_tasks_overhead"]})
    if args.json:
        print(json.dumps({"command": "runtime_vs_starpu", "results": rows}, indent=1))
        return 0
    print(f"median of {args.repeat} runs, {args.tasks} empty tasks, us per task "
          "(submission + execution); ratio = conveyor / starpu")
    print(f"{'data':>4} {'conveyor':>10} {'starpu':>10} {'starpu-async':>13} {'ratio':>7} "
          f"{'ratio-async':>12}")
    for r in rows:
        print(f"{r['buffers']:>4} {r['conveyor_us_per_task']:>10.2f} "
              f"{r['starpu_tasks_overhead_us_per_task']:>10.2f} "
              f"{r['starpu_async_tasks_overhead_us_per_task']:>13.2f} "
              f"{r['ratio_vs_tasks_overhead']:>7.2f} {r['ratio_vs_async_tasks_overhead']:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
