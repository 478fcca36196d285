#!/usr/bin/env bash
# tests/support/distributed_mismatch.sh — ranks that disagree with rank 0 must say so in one line and exit 1
# within the timeout: another WORLD_SIZE, other options, a RANK taken twice.
# Usage: distributed_mismatch.sh CLI PORT ARGS...   (ARGS: an analysis with --distributed)
set -uo pipefail
cli=$1 port=$2
shift 2
export MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect NAME REGEX FILE: FILE (stderr) holds exactly one error line matching REGEX.
expect() {
  local errors
  errors=$(grep -v '^\[' "$3")
  if [ "$(printf '%s\n' "$errors" | wc -l)" -ne 1 ] || ! printf '%s\n' "$errors" | grep -Eq "$2"; then
    echo "$1: expected one line matching '$2', got:"; cat "$3"; exit 1
  fi
}

# A rank started with WORLD_SIZE 3 against rank 0's 2; rank 0 then waits for a second rank in vain.
WORLD_SIZE=2 RANK=0 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r0" &
r0=$!
WORLD_SIZE=3 RANK=1 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r1"
[ $? -eq 1 ] || { echo "world size: rank 1 did not exit 1"; cat "$work/r1"; exit 1; }
wait $r0
[ $? -eq 1 ] || { echo "world size: rank 0 did not exit 1"; cat "$work/r0"; exit 1; }
expect "rank 1" "^error: --distributed: WORLD_SIZE is 3 on rank 1 but 2 on rank 0$" "$work/r1"
expect "rank 0" "^error: --distributed: 1 of 2 ranks joined within 8 s \(rank 0 waited" "$work/r0"

# Other options on rank 1 (a different --window).
WORLD_SIZE=2 RANK=0 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r0" &
r0=$!
WORLD_SIZE=2 RANK=1 timeout 50 "$cli" "$@" --window 8 --distributed-timeout 8 >/dev/null 2>"$work/r1"
[ $? -eq 1 ] || { echo "options: rank 1 did not exit 1"; cat "$work/r1"; exit 1; }
wait $r0
expect "options" "^error: --distributed: rank 1 was started with other options than rank 0 \(" "$work/r1"

# Two processes claiming RANK 1, started together: whichever joins second must say so (the first
# then waits in vain for a rank 2 and stops at its timeout).
WORLD_SIZE=3 RANK=0 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r0" &
r0=$!
WORLD_SIZE=3 RANK=1 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r1a" &
r1a=$!
WORLD_SIZE=3 RANK=1 timeout 50 "$cli" "$@" --distributed-timeout 8 >/dev/null 2>"$work/r1b" &
r1b=$!
wait $r0 $r1a $r1b
duplicate="^error: --distributed: another process already joined as RANK 1$"
if grep -Eq "$duplicate" "$work/r1a"; then expect "duplicate" "$duplicate" "$work/r1a"
else expect "duplicate" "$duplicate" "$work/r1b"; fi
echo "mismatches reported"
