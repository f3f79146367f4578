#!/usr/bin/env bash
# The long differential soak: random task graphs across MPI ranks (tests/mpi/test_distributed_random_graphs.cpp)
# over every configuration of that test (each scheduler, both coherence policies, CPUs only, one or
# two emulated devices, a simulated four-device platform, device memory unlimited or small) at
# 1, 2, 3 and 4 ranks, each run with a seed of its own. A run is one mpirun under `timeout`; it
# passes, or counts as a mismatch (a datum differed from the sequential run), a hang (it ran past
# --timeout) or a crash (any other failure). Exits nonzero if any run did not pass.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/soak.sh [options]

Runs GRAPHS random task graphs (default 10000) through the distributed differential test, dealt
over every (configuration, rank count) pair in a shuffled order, each mpirun with a seed of its
own, and compares every datum with a sequential run of the same tasks.

options:
  --graphs N        graphs in total (env GRAPHS; default 10000)
  --per-run N       graphs per mpirun (default: GRAPHS / pairs, so that every (configuration,
                    ranks) pair gets a run when GRAPHS >= pairs; a few pairs get two)
  --ranks LIST      rank counts, comma-separated (default 1,2,3,4; oversubscribed)
  --match TEXT      only the configurations whose names contain TEXT (e.g. 4sim, naive/model)
  --seed N          the first run's seed; run i uses N + i (default: the time now, printed)
  --timeout S       seconds before one mpirun counts as a hang (default 120)
  --bin PATH        the MPI test binary (env CONVEYOR_MPI_TESTS; default
                    build/release/tests/conveyor_mpi_tests, what `make build` makes)
  --mpirun PATH     the MPI launcher (env MPIRUN; default mpirun)
  --json-out FILE   writes the report as JSON (atomically: a temporary file beside it, then mv)
  --list            prints the configurations and exits
  -h, --help        this text

A failing run prints the command that replays it alone, e.g.
  CONVEYOR_DIFF_SEED=1234 CONVEYOR_DIST_GRAPHS=31 CONVEYOR_DIFF_ONLY=naive/locality/2emu/4096B/op \
    mpirun --oversubscribe --bind-to none -np 3 build/release/tests/conveyor_mpi_tests \
    --gtest_filter='DistributedDifferential.*'
(with the two OMPI_ALLOW_RUN_AS_ROOT variables in front when run as root). Everything the runs
write goes to a temporary directory, removed at the end; only --json-out is written elsewhere.
EOF
}

die() {
  echo "soak.sh: $*" >&2
  exit 2
}

graphs=${GRAPHS:-10000}
per_run=""
ranks_list="1,2,3,4"
match=""
seed=""
timeout_s=120
bin=${CONVEYOR_MPI_TESTS:-build/release/tests/conveyor_mpi_tests}
mpirun_cmd=${MPIRUN:-mpirun}
json_out=""
list_only=0

while (($#)); do
  case $1 in
    --graphs) graphs=${2:?--graphs needs a value}; shift 2 ;;
    --per-run) per_run=${2:?--per-run needs a value}; shift 2 ;;
    --ranks) ranks_list=${2:?--ranks needs a value}; shift 2 ;;
    --match) match=${2:?--match needs a value}; shift 2 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    --timeout) timeout_s=${2:?--timeout needs a value}; shift 2 ;;
    --bin) bin=${2:?--bin needs a value}; shift 2 ;;
    --mpirun) mpirun_cmd=${2:?--mpirun needs a value}; shift 2 ;;
    --json-out) json_out=${2:?--json-out needs a value}; shift 2 ;;
    --list) list_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
done

is_count() { [[ $1 =~ ^[0-9]+$ ]] && (($1 > 0)); }
is_count "$graphs" || die "--graphs must be a positive integer (got '$graphs')"
[[ -z $per_run ]] || is_count "$per_run" || die "--per-run must be a positive integer"
is_count "$timeout_s" || die "--timeout must be a positive number of seconds"
[[ -z $seed ]] || [[ $seed =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer"
[[ -x $bin ]] || die "no test binary at '$bin' (make build, or --bin PATH / CONVEYOR_MPI_TESTS)"
command -v "$mpirun_cmd" > /dev/null || die "no MPI launcher '$mpirun_cmd' (--mpirun PATH)"
command -v timeout > /dev/null || die "needs timeout (coreutils)"
IFS=',' read -r -a ranks <<< "$ranks_list"
for r in "${ranks[@]}"; do is_count "$r" || die "--ranks takes positive integers (got '$r')"; done
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

work=$(mktemp -d "${TMPDIR:-/tmp}/conveyor-soak.XXXXXX")
json_tmp=""
cleanup() { rm -rf "$work" ${json_tmp:+"$json_tmp"}; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/tmp" "$work/cache" "$work/logs"

# For this script's children only: Open MPI refuses root without these (CI runs as root); the
# containers' lack of cross-process memory reads; the runs' temporary files and caches in $work.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export TMPDIR=$work/tmp XDG_CACHE_HOME=$work/cache

filter='--gtest_filter=DistributedDifferential.*'
mapfile -t configs < <(CONVEYOR_DIFF_LIST=1 timeout 60 "$bin" "$filter" 2>&1 |
  sed -n 's/^configuration //p' | { if [[ -n $match ]]; then grep -F -- "$match" || true; else cat; fi; })
((${#configs[@]})) || die "no configurations match '$match' (is '$bin' the MPI test binary?)"
if ((list_only)); then
  printf '%s\n' "${configs[@]}"
  exit 0
fi

# Every (configuration, ranks) pair, shuffled by the seed so that a short soak still meets a bit
# of everything; run i takes pair i mod pairs.
seed=${seed:-$(date +%s)}
pairs=()
for c in "${configs[@]}"; do for r in "${ranks[@]}"; do pairs+=("$r $c"); done; done
mapfile -t pairs < <(printf '%s\n' "${pairs[@]}" |
  awk -v s="$seed" 'BEGIN { srand(s % 2147483647) } { print rand() "\t" $0 }' | sort -k1,1g |
  cut -f2-)
n_pairs=${#pairs[@]}
per_run=${per_run:-$((graphs / n_pairs > 0 ? graphs / n_pairs : 1))}
runs=$(((graphs + per_run - 1) / per_run))

replay_prefix=""
[[ $(id -u) != 0 ]] || replay_prefix="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
echo "soak: $graphs graphs in $runs runs of up to $per_run, ${#configs[@]} configurations x" \
  "ranks {$ranks_list}, seeds $seed..$((seed + runs - 1)), timeout ${timeout_s} s, $bin"

declare -A cfg_graphs=() cfg_runs=() cfg_fail=() rank_graphs=() rank_runs=() rank_fail=()
mismatches=0 hangs=0 crashes=0 done_graphs=0
failures_json=""
start=$(date +%s.%N)
elapsed() { awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }
for ((i = 0; i < runs; i++)); do
  read -r np config <<< "${pairs[i % n_pairs]}"
  run_seed=$((seed + i))
  n=$((graphs - done_graphs < per_run ? graphs - done_graphs : per_run))
  log=$work/logs/run-$i.log
  rc=0
  CONVEYOR_DIFF_SEED=$run_seed CONVEYOR_DIST_GRAPHS=$n CONVEYOR_DIFF_ONLY=$config \
    timeout -k 10 "$timeout_s" "$mpirun_cmd" --oversubscribe --bind-to none -np "$np" \
    "$bin" "$filter" > "$log" 2>&1 || rc=$?
  done_graphs=$((done_graphs + n))
  cfg_graphs[$config]=$((${cfg_graphs[$config]:-0} + n))
  cfg_runs[$config]=$((${cfg_runs[$config]:-0} + 1))
  rank_graphs[$np]=$((${rank_graphs[$np]:-0} + n))
  rank_runs[$np]=$((${rank_runs[$np]:-0} + 1))
  if ((rc == 0)); then
    if ((i % 50 == 49)); then
      printf 'soak: %d/%d runs, %d graphs, %d failed, %.0f s\n' $((i + 1)) "$runs" "$done_graphs" \
        $((mismatches + hangs + crashes)) "$(elapsed)"
    fi
    continue
  fi
  if ((rc == 124 || rc == 137)); then
    kind=hang
    hangs=$((hangs + 1))
  elif ((rc == 1)) && grep -Eq '\[  FAILED  \]|^\[rank [0-9]+\] ' "$log" &&
    ! grep -qi 'signal' "$log"; then  # a datum differed (rank 0's report, or another rank's line)
    kind=mismatch
    mismatches=$((mismatches + 1))
  else
    kind=crash
    crashes=$((crashes + 1))
  fi
  cfg_fail[$config]=$((${cfg_fail[$config]:-0} + 1))
  rank_fail[$np]=$((${rank_fail[$np]:-0} + 1))
  replay="${replay_prefix}CONVEYOR_DIFF_SEED=$run_seed CONVEYOR_DIST_GRAPHS=$n"
  replay+=" CONVEYOR_DIFF_ONLY=$config $mpirun_cmd --oversubscribe --bind-to none -np $np"
  replay+=" $bin '$filter'"
  {
    echo "soak: run $i: $kind (exit $rc): $np ranks, $config, seed $run_seed, $n graphs; replay:"
    echo "  $replay"
    tail -n 25 "$log" | sed 's/^/  | /'
  } >&2
  failures_json+="${failures_json:+,}"$'\n    '
  failures_json+="{\"run\": $i, \"kind\": \"$kind\", \"exit\": $rc, \"ranks\": $np,"
  failures_json+=" \"configuration\": \"$config\", \"seed\": $run_seed, \"graphs\": $n,"
  failures_json+=" \"replay\": \"${replay//\"/\\\"}\"}"
done
wall=$(elapsed)
failed=$((mismatches + hangs + crashes))

# The summary table: graphs and failed runs by rank count, then by device set.
echo
printf '%-8s %8s %8s %8s\n' ranks runs graphs failed
for r in "${ranks[@]}"; do
  printf '%-8s %8d %8d %8d\n' "$r" "${rank_runs[$r]:-0}" "${rank_graphs[$r]:-0}" "${rank_fail[$r]:-0}"
done
echo
printf '%-8s %8s %8s %8s\n' devices configs graphs failed
for where in cpu 1emu 2emu 4sim; do
  nc=0 ng=0 nf=0
  for c in "${configs[@]}"; do
    [[ /$c/ == */$where/* ]] || continue
    nc=$((nc + 1)) ng=$((ng + ${cfg_graphs[$c]:-0})) nf=$((nf + ${cfg_fail[$c]:-0}))
  done
  printf '%-8s %8d %8d %8d\n' "$where" "$nc" "$ng" "$nf"
done
echo
printf 'soak: %d graphs, %d runs, %d configurations, ranks {%s}: %d mismatches, %d hangs,' \
  "$done_graphs" "$runs" "${#configs[@]}" "$ranks_list" "$mismatches" "$hangs"
printf ' %d crashes; %.1f s on %s (%s cores)\n' "$crashes" "$wall" "$(hostname)" "$(nproc)"

if [[ -n $json_out ]]; then
  per_config=""
  for c in "${configs[@]}"; do
    per_config+="${per_config:+,}"$'\n    '"\"$c\": {\"runs\": ${cfg_runs[$c]:-0},"
    per_config+=" \"graphs\": ${cfg_graphs[$c]:-0}, \"failed\": ${cfg_fail[$c]:-0}}"
  done
  per_ranks=""
  for r in "${ranks[@]}"; do
    per_ranks+="${per_ranks:+, }\"$r\": {\"runs\": ${rank_runs[$r]:-0},"
    per_ranks+=" \"graphs\": ${rank_graphs[$r]:-0}, \"failed\": ${rank_fail[$r]:-0}}"
  done
  failed_seeds=$(printf '%s' "$failures_json" | sed -n 's/.*"seed": \([0-9]*\).*/\1/p' | paste -sd, -)
  [[ -z $failures_json ]] || failures_json+=$'\n  '
  dir=$(dirname "$json_out")
  mkdir -p "$dir"
  json_tmp=$(mktemp "$dir/.soak.json.XXXXXX")
  cat > "$json_tmp" <<EOF
{
  "kind": "differential_soak",
  "graphs": $done_graphs,
  "runs": $runs,
  "graphs_per_run": $per_run,
  "first_seed": $seed,
  "ranks": [${ranks_list}],
  "configurations": ${#configs[@]},
  "timeout_s": $timeout_s,
  "mismatches": $mismatches,
  "hangs": $hangs,
  "crashes": $crashes,
  "failed_seeds": [${failed_seeds}],
  "failures": [${failures_json}],
  "wall_s": $wall,
  "machine": {"hostname": "$(hostname)", "nproc": $(nproc)},
  "per_ranks": {${per_ranks}},
  "per_configuration": {${per_config}
  }
}
EOF
  mv "$json_tmp" "$json_out"
  json_tmp=""
  echo "soak: report in $json_out"
fi
((failed == 0))
