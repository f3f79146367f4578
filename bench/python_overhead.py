#!/usr/bin/env python3
"""What submitting a built-in task from Python adds to the runtime's own per-task cost, in one run.

The same task (potrf of an 8 x 8 identity tile: it stays the identity, so every task is valid and
almost free) is submitted N times two ways on one Runtime, in alternating rounds so both see the
same machine state: from a Python loop (`rt.submit("potrf", [tile])`), and from C++ in one call
(`rt._submit_many`, the baseline). Each round waits for its tasks. Reported per task, best round of
each: the submitting loop's time (where Python's share is) and the wall time to the end of the
wait. Target (issue 26): Python adds <= 2 us per built-in task.

    PYTHONPATH=build/release/python:python python3 bench/python_overhead.py [--tasks N] [--rounds R]
        [--tiles T] [--cpus C] [--json FILE]
"""
import argparse
import json
import platform
import time

import numpy as np

import conveyor


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", type=int, default=20000, help="tasks per round (default 20000)")
    p.add_argument("--rounds", type=int, default=7, help="rounds of each way (default 7)")
    p.add_argument("--tiles", type=int, default=64,
                   help="independent tiles the tasks cycle over (default 64)")
    p.add_argument("--cpus", type=int, default=-1, help="CPU workers (default one per core)")
    p.add_argument("--json", help="also write the figures to this file")
    a = p.parse_args()
    if a.tasks < 1 or a.rounds < 1 or a.tiles < 1:
        p.error("--tasks, --rounds and --tiles must be positive")

    tiles = [np.asfortranarray(np.eye(8)) for _ in range(a.tiles)]
    with conveyor.Runtime(cpus=a.cpus) as rt:
        data = [rt.register(t) for t in tiles]
        per_tile = max(1, a.tasks // a.tiles)
        count = per_tile * a.tiles

        def from_python():
            submit = rt.submit
            for _ in range(per_tile):
                for d in data:
                    submit("potrf", [d])

        def from_cpp():
            for d in data:
                rt._submit_many("potrf", [d], per_tile)

        best = {"python": [1e30, 1e30], "cpp": [1e30, 1e30]}
        for _ in range(a.rounds):
            for name, way in (("python", from_python), ("cpp", from_cpp)):
                t0 = time.perf_counter()
                way()
                t1 = time.perf_counter()
                rt.wait()
                t2 = time.perf_counter()
                best[name][0] = min(best[name][0], (t1 - t0) / count)
                best[name][1] = min(best[name][1], (t2 - t0) / count)
        workers = len(rt.workers())
    for t in tiles:  # every task left the identity as it was
        np.testing.assert_array_equal(t, np.eye(8))

    us = {k: [v * 1e6 for v in vals] for k, vals in best.items()}
    added_submit = us["python"][0] - us["cpp"][0]
    added_wall = us["python"][1] - us["cpp"][1]
    print(f"{count} built-in tasks per round over {a.tiles} tiles, {workers} workers, best of "
          f"{a.rounds} rounds ({platform.node()})")
    print(f"{'submitted from':<16}{'submit loop us/task':>22}{'to end of wait us/task':>26}")
    for k in ("cpp", "python"):
        print(f"{k:<16}{us[k][0]:>22.3f}{us[k][1]:>26.3f}")
    print(f"Python adds {added_submit:.3f} us per task in the submit loop, {added_wall:.3f} us to "
          f"the end of the wait (target <= 2 us)")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as out:
            json.dump({"tasks": count, "tiles": a.tiles, "workers": workers, "rounds": a.rounds,
                       "cpp_us": us["cpp"], "python_us": us["python"],
                       "added_submit_us": added_submit, "added_wall_us": added_wall}, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
