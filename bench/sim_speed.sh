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
docs = [json.loads(line) for line in sys.stdin.read().replace("}\n{", "}\x00{").split("\x00")]
rows = [d["results"][0] for d in docs]
def med(key): return statistics.median(r[key] for r in rows)
r = rows[0]
print(f"program {r[\"benchmark\"]}, {r[\"nodes\"]} nodes, {r[\"entries\"]} entries, {len(rows)} runs")
print(f"simulated instructions {r[\"instructions\"]}, cycles {r[\"total_cycles\"]}")
print(f"median wall  : {med(\"instructions_per_second\")/1e6:8.1f} M instructions/s  {med(\"cycles_per_second\")/1e6:6.2f} M cycles/s")
cyc_cpu = statistics.median(r["total_cycles"] / r["sim_cpu_seconds"] for r in rows)
print(f"median CPU   : {med(\"instructions_per_cpu_second\")/1e6:8.1f} M instructions/CPU-s  {cyc_cpu/1e6:6.2f} M cycles/CPU-s")
'
