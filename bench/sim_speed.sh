#!/usr/bin/env bash
# Simulator speed: runs a benchmark program REPEAT times with `conveyor sim run --json` and prints
# the median simulated instructions and cycles per host second (wall and CPU time of the
# simulating thread; CPU time is the figure to trust on a shared machine).
#
#   bench/sim_speed.sh [CONVEYOR] [PROGRAM] [NODES] [ENTRIES] [REPEAT]
#   bench/sim_speed.sh build/release/tools/conveyor/conveyor pipeline 64 0 5
set -euo pipefail
cli=${1:-build/release/tools/conveyor/conveyor}
program=${2:-pipeline}
nodes=${3:-64}
entries=${4:-0}
repeat=${5:-5}
for _ in $(seq "$repeat"); do
  "$cli" sim run "$program" --nodes "$nodes" --entries "$entries" --json
done | python3 -c '
import json, statistics, sys
text = sys.stdin.read().replace("}\n{", "}\x00{")
rows = [json.loads(doc)["results"][0] for doc in text.split("\x00")]
first = rows[0]
med = lambda f: statistics.median(f(r) for r in rows)
print("program %s, %d nodes, %d entries, %d runs" % (first["benchmark"], first["nodes"], first["entries"], len(rows)))
print("simulated instructions %d, cycles %d" % (first["instructions"], first["total_cycles"]))
print("median wall: %8.1f M instructions/s      %6.2f M cycles/s" % (
    med(lambda r: r["instructions_per_second"]) / 1e6, med(lambda r: r["cycles_per_second"]) / 1e6))
print("median CPU : %8.1f M instructions/CPU-s  %6.2f M cycles/CPU-s" % (
    med(lambda r: r["instructions_per_cpu_second"]) / 1e6,
    med(lambda r: r["total_cycles"] / r["sim_cpu_seconds"]) / 1e6))
'
