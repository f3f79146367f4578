#!/usr/bin/env bash
# Runs a GoogleTest binary as N shards side by side (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX: each
# shard runs every N-th test), for the sanitized test binaries of `make test`, which are one
# process each and would leave all but one core idle. Prints each shard's output in turn and
# exits with the first failing shard's status (0 when all pass).
#
#   scripts/gtest-shards.sh N BINARY [GTEST ARGS...]
#   scripts/gtest-shards.sh 2 build/tsan/tests/conveyor_runtime_tests --gtest_filter='-*opencl*'
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/gtest-shards.sh N BINARY [GTEST ARGS...] (N >= 1)" >&2
  exit 2
fi
shards=$1 binary=$2
shift 2
[ -x "$binary" ] || { echo "gtest-shards: $binary is not an executable" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < shards; ++i)); do
  (rc=0
   GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$binary" "$@" > "$work/$i.log" 2>&1 || rc=$?
   echo "$rc" > "$work/$i.rc") &
done
wait
status=0
for ((i = 0; i < shards; ++i)); do
  echo "---- shard $((i + 1)) of $shards: $binary"
  cat "$work/$i.log"
  rc=$(cat "$work/$i.rc")
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
done
exit "$status"
