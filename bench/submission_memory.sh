#!/usr/bin/env bash
# Bounded submission, side by side in one run: a graph of N small tasks behind one slow first task
# submitted at once with the runtime's default limit (RuntimeOptions::max_submitted), at once
# without a limit (what the runtime did before the limit), and in waves of 100 000 with wait_all
# between them. Rounds alternate the three; prints each run and the median peak RSS and time of
# each, with the ratios to the waves.
#
#   bench/submission_memory.sh [--tasks 3000000,10000000] [--rounds 3] [--cpus K]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$here/build/release/bench/bench_submission_memory}
sizes=3000000,10000000
rounds=3
cpus=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tasks) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --cpus) cpus=(--cpus "$2"); shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "submission_memory.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$bench" ] || { echo "submission_memory.sh: build first ($bench missing)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for n in ${sizes//,/ }; do
  for r in $(seq "$rounds"); do
    "$bench" --tasks "$n" "${cpus[@]}" --mode once | sed 's/^{/{"config": "bounded", /' | tee -a "$out"
    "$bench" --tasks "$n" "${cpus[@]}" --mode once --max-submitted 1000000000000 |
      sed 's/^{/{"config": "unbounded", /' | tee -a "$out"
    "$bench" --tasks "$n" "${cpus[@]}" --mode waves --wave 100000 | sed 's/^{/{"config": "waves", /' | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("\n| tasks | configuration | limit | median peak RSS MB | vs waves | median s | vs waves |")
print("|---|---|---|---|---|---|---|")
for n in sorted({r["tasks"] for r in rows}):
    med = {}
    for c in ("bounded", "unbounded", "waves"):
        rs = [r for r in rows if r["tasks"] == n and r["config"] == c]
        med[c] = (statistics.median(r["peak_rss_mb"] for r in rs),
                  statistics.median(r["seconds"] for r in rs), rs[0]["max_submitted"])
    for c, (rss, s, limit) in med.items():
        print(f"| {n} | {c} | {limit if c == 'bounded' else '-'} | {rss:.0f} | "
              f"{rss / med['waves'][0]:.2f}x | {s:.2f} | {s / med['waves'][1]:.2f}x |")
PY
