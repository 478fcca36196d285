#!/usr/bin/env bash
# tests/support/distributed_check.sh — one attention-cli analysis run in one process and in two ranks of a
# c10d group on 127.0.0.1 (--distributed); what it prints (CSV or report) and its JSON (every digit)
# must be identical, and rank 1 prints nothing on stdout. Usage: distributed_check.sh CLI PORT WORKDIR COMMAND ARGS...
set -euo pipefail
cli=$1 port=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
# One thread in every run: with two, the BLAS may use fewer when the machine is busy (ctest -j), and a
# product summed in another order moved eval's perplexity in the 6th digit between the two runs.
run() { timeout 300 "$cli" "$@" --threads 1; }

run "$@" >"$work/one.txt" 2>"$work/one.err"
run "$@" --json >"$work/one.json" 2>>"$work/one.err"

# On CUDA each rank takes the GPU of its LOCAL_RANK (as torchrun sets it); NCCL refuses two ranks on
# one GPU, so a machine with fewer than two GPUs cannot run this test (ctest counts it as skipped).
case ${AW_DEVICE:-} in
  cuda*)
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    if [ "${gpus:-0}" -lt 2 ]; then echo "skipped: two NCCL ranks need two GPUs, this machine has ${gpus:-0}"; exit 0; fi ;;
esac
export WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
for mode in txt json; do
  extra=()
  [ "$mode" = json ] && extra=(--json)
  RANK=1 LOCAL_RANK=1 run "$@" --distributed --distributed-timeout 60 ${extra[@]+"${extra[@]}"} >"$work/rank1.$mode" 2>"$work/rank1.err" &
  rank1=$!
  RANK=0 LOCAL_RANK=0 run "$@" --distributed --distributed-timeout 60 ${extra[@]+"${extra[@]}"} >"$work/rank0.$mode" 2>"$work/rank0.err" ||
    { echo "rank 0 failed:"; cat "$work/rank0.err"; wait "$rank1" || true; exit 1; }
  wait "$rank1" || { echo "rank 1 failed:"; cat "$work/rank1.err"; exit 1; }
  [ -s "$work/rank1.$mode" ] && { echo "rank 1 printed on stdout:"; head -3 "$work/rank1.$mode"; exit 1; }
done
cmp "$work/one.txt" "$work/rank0.txt" || { diff "$work/one.txt" "$work/rank0.txt" | head; exit 1; }
# eval's "seconds" is how long the forward passes took: the one line two runs need not share.
for f in one rank0; do grep -v '^  "seconds": ' "$work/$f.json" > "$work/$f.timeless.json"; done
cmp "$work/one.timeless.json" "$work/rank0.timeless.json" ||
  { diff "$work/one.timeless.json" "$work/rank0.timeless.json" | head; exit 1; }
echo "identical: $(wc -l <"$work/one.txt") lines, $(wc -c <"$work/one.json") bytes of JSON"
