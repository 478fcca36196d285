# scripts/gpu/steps.sh — sourced by the device scripts (gpu-check.sh, gpu-long-context.sh): a summary
# line, and a step run under its own time limit inside one overall deadline. Sourced from the repo root
# with the script's first argument: sets start, out ($OUT, else build-torch/gpu-out), summary (emptied),
# jobs, cpu (1 with --cpu), scale (4 with --cpu: each limit) and deadline (DEADLINE, else 540 × scale).
# Defines note, step, begin and ctest_result.
start=$SECONDS
out=${OUT:-build-torch/gpu-out}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
jobs=$(nproc 2>/dev/null || echo 2)
cpu=0 scale=1
[ "${1:-}" = --cpu ] && cpu=1 scale=4
deadline=${DEADLINE:-$((540 * scale))}

note() { echo "$*" | tee -a "$summary"; }
# step NAME BUDGET LOG COMMAND...: runs COMMAND under `timeout` for BUDGET seconds or what is left
# before the deadline (less 15 s for the summary), appending its output to LOG; notes how it ended.
step() {
  local name=$1 budget=$(($2 * scale)) log=$3
  shift 3
  local left=$((deadline - (SECONDS - start) - 15))
  [ "$budget" -lt "$left" ] || budget=$left
  if [ "$budget" -lt 10 ]; then
    note "$(printf '%-24s skipped: the deadline is near' "$name")"
    return 1
  fi
  local begun=$SECONDS status
  echo "=== $name (limit ${budget}s): $*" >>"$log"
  timeout -k 5 "$budget" "$@" >>"$log" 2>&1
  status=$?
  local verdict="ok"
  [ $status -eq 0 ] || verdict="FAILED (exit $status)"
  [ $status -eq 124 ] && verdict="TIMED OUT after ${budget}s"
  note "$(printf '%-24s %-28s %4ds  log: %s' "$name" "$verdict" $((SECONDS - begun)) "$(basename "$log")")"
  return $status
}
# begin NAME BUILD_BUDGET: the summary's first lines (the script, the time, the machine, its GPU), then
# build-torch/ against the machine's PyTorch; a failed build ends the script, its log's tail shown.
begin() {
  note "$1 $(date -u +%FT%TZ) on $(uname -n): $jobs cores, AW_DEVICE=$AW_DEVICE"
  command -v nvidia-smi >/dev/null && note "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)"
  if ! step build "$2" "$out/build.log" env JOBS="$jobs" bash scripts/gpu/build-pytorch.sh; then
    tail -30 "$out/build.log"
    note "build failed: nothing else runs"
    exit 1
  fi
}
# The pass/fail line ctest printed last in LOG, or what finished before it was stopped.
ctest_result() {
  grep -E '^[0-9]+% tests passed' "$1" | tail -1 | grep . ||
    echo "stopped: $(grep -cE 'Test +#[0-9]+: .* Passed' "$1") passed, $(grep -cE 'Test +#[0-9]+: .*\*\*\*' "$1") failed or skipped before that"
}

