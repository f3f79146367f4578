#!/usr/bin/env bash
# Strategy auto of the staged pipeline: the calibration's model against timing, on this machine.
# Each round measures a fresh calibration (conveyor probe --device cpu --no-apps, into the output
# folder, not the user's cache), then runs alternately
#   timed: stream --pipeline MOVER --strategy auto --calibrate   (rows also carry the model's choice)
#   model: stream --pipeline MOVER --strategy auto               (the model decides)
# and prints, per thread count and kernel, how often the two chose the same, and the median
# speedup (pipelined / CPU-only best GB/s, same run) of each one's rows. Load averages are printed
# before each run: on a shared host the figures move with them.
#
#   bench/pipeline_auto_model.sh [--rounds R] [--mover thread] [--threads 1-N] [--elements N]
#                                [--block B] [--depth Q] [--repeats K] [--out DIR] [--conveyor PATH]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
conveyor=${CONVEYOR:-$here/build/release/tools/conveyor/conveyor}
rounds=3
mover=thread
threads="1-$(nproc)"
elements=16M
block=256KiB
depth=4
repeats=10
out=pipeline-auto-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --mover) mover=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --elements) elements=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --conveyor) conveyor=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "pipeline_auto_model.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$conveyor" ] || { echo "pipeline_auto_model.sh: $conveyor not built (make build)" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/wall.txt"
load() { cut -d' ' -f1-3 /proc/loadavg; }

for r in $(seq 1 "$rounds"); do
  cal="$out/calibration-$r.json"
  echo "== round $r: probe (load: $(load))"
  "$conveyor" probe --device cpu --no-apps --calibration "$cal" --json-out "$out/probe-$r.json" \
    > /dev/null
  for mode in timed model; do
    extra=""
    [ "$mode" = timed ] && extra="--calibrate"
    echo "== round $r: $mode (load: $(load))"
    start=$(date +%s.%N)
    "$conveyor" stream --pipeline "$mover" --strategy auto $extra --calibration "$cal" \
      --threads "$threads" --elements "$elements" --block "$block" --depth "$depth" \
      --repeats "$repeats" --no-overlap --json-out "$out/$mode-$r.json" > /dev/null
    echo "$mode $(echo "$(date +%s.%N) - $start" | bc)" >> "$out/wall.txt"
  done
done

python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}  # (threads, kernel) -> lists
for r in range(1, rounds + 1):
    for mode in ("timed", "model"):
        doc = json.load(open(f"{out}/{mode}-{r}.json"))
        for row in doc["results"]:
            if row["pipeline"] == "none":
                continue
            key = (row["threads"], row["kernel"])
            d = rows.setdefault(key, {"timed": [], "model": [], "agree": 0, "pred": []})
            d[mode].append((row["strategy"], row["speedup"]))
            if mode == "timed":
                d["agree"] += row.get("model_strategy") == row["strategy"]
                d["pred"].append((row.get("predicted_plain_gbs", 0), row.get("predicted_all_gbs", 0),
                                  row.get("predicted_split_gbs", 0)))
print(f"{'threads':>7} {'kernel':>6}  agree  timed choices   model choices   "
      f"median speedup timed / model   predicted plain/all/split GB/s (median)")
for (t, k), d in sorted(rows.items()):
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    pred = [med([p[i] for p in d["pred"]]) for i in range(3)]
    print(f"{t:>7} {k:>6}  {d['agree']}/{len(d['timed'])}    "
          f"{','.join(s for s, _ in d['timed']):<15} {','.join(s for s, _ in d['model']):<15} "
          f"{med([x for _, x in d['timed']]):.2f}x / {med([x for _, x in d['model']]):.2f}x"
          f"                  {pred[0]:.1f} / {pred[1]:.1f} / {pred[2]:.1f}")
agree = sum(d["agree"] for d in rows.values())
total = sum(len(d["timed"]) for d in rows.values())
print(f"same choice in {agree} of {total} rows")
for mode in ("timed", "model"):
    rates, cpu = [], []
    for r in range(1, rounds + 1):
        res = json.load(open(f"{out}/{mode}-{r}.json"))["results"]
        cpu += [x["best_gbs"] for x in res if x["pipeline"] == "none"]
        rates += [x["best_gbs"] for x in res if x["pipeline"] != "none"]
    walls = [float(l.split()[1]) for l in open(f"{out}/wall.txt") if l.split()[0] == mode]
    print(f"{mode}: median pipelined {statistics.median(rates):.2f} GB/s, CPU-only "
          f"{statistics.median(cpu):.2f} GB/s (same runs); median wall time of a run "
          f"{statistics.median(walls):.1f} s")
PY
echo "results in $out/"
