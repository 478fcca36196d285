#!/usr/bin/env bash
# Issue 38's GPU check, one command of a session with a lent GPU machine (repo root, .deps/root.tar.xz
# carried; docs/gpu.md): builds build-torch/ against the machine's PyTorch (scripts/gpu/build-pytorch.sh),
# runs the fused-against-explicit tests on the CPU and CUDA, then bench_gpu_long_context — the ablate
# sweep at 2,048 tokens on the Llama-3.2-1B layout with the explicit path and with fused attention, and
# `stats` at 32,768 tokens on the Llama-3.1-8B layout against the fused forward, with the CUDA
# allocator's peaks — and, in the time left, the CLI and core tests with AW_DEVICE=cuda. Each step has
# its own limit inside DEADLINE seconds (default 540); logs, bench.json and summary.txt go to $OUT.
# Usage: scripts/gpu/gpu-long-context.sh [--cpu]
#   --cpu  the same on the CPU with small layouts and lengths (no GPU needed), 4× the limits.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/steps.sh "${1:-}"  # start, out, summary, jobs, cpu, scale, deadline; note, step, begin, ctest_result

if [ $cpu -eq 1 ]; then
  export AW_DEVICE=cpu
  sizes=(AW_BENCH_LAYOUT=small AW_BENCH_TOKENS=2048 AW_BENCH_SWEEP_LAYOUT=small AW_BENCH_SWEEP_TOKENS=256)
else
  export AW_DEVICE=${AW_DEVICE:-cuda}
  sizes=()
fi
begin gpu-long-context 240
grep -E '^build-pytorch: torch' "$out/build.log" | tee -a "$summary"

# Fused against explicit: forward, gradients, sweeps (1e-5); every family tiled against whole.
step "fused = explicit tests" 60 "$out/tests.log" env OMP_NUM_THREADS=1 \
  ctest --test-dir build-torch -R "FusedAttention|FusedSweeps|AttentionTiles|TiledConsumers" -j "$jobs" --timeout 50 --output-on-failure
note "    $(ctest_result "$out/tests.log")"

# The weights are written once into /tmp (1B: 2.5 GB, 8B: 15 GB) before each benchmark's timing.
step "bench ablate sweep" 120 "$out/bench.log" env ${sizes[@]+"${sizes[@]}"} \
  build-torch/bench/bench_gpu_long_context --benchmark_filter=AblateSweep \
  --benchmark_out="$out/bench-sweep.json" --benchmark_out_format=json
step "bench stats at length" 240 "$out/bench.log" env ${sizes[@]+"${sizes[@]}"} \
  build-torch/bench/bench_gpu_long_context --benchmark_filter=StatsAtLength \
  --benchmark_out="$out/bench-stats.json" --benchmark_out_format=json
grep -E '^BM_' "$out/bench.log" | tee -a "$summary"

# The rest of the suites on the device, as far as the deadline allows (the sample models whose
# weights did not travel are left out: scripts/gpu/device-tree.sh slim).
skip=()
{ read -r missing_samples; read -r skipped_count; read -r skip_regex; } < <(python3 scripts/gpu/sample-tests.py build-torch sample_data || printf '\n0\n\n')
[ -n "$skip_regex" ] && skip=(-E "$skip_regex") && note "skipped: $skipped_count tests of sample models without weights ($missing_samples)"
if [ ! -f .venv/all-MiniLM-L6-v2/model.safetensors ] && [ -z "${AW_MINILM_DIR:-}" ]; then
  skip=(-E "${skip_regex:+$skip_regex|}MiniLm") && note "skipped: MiniLm (no .venv/all-MiniLM-L6-v2 here)"
fi
step "ctest -L cli" 90 "$out/ctest.log" env OMP_NUM_THREADS=1 \
  ctest --test-dir build-torch -L cli -LE distributed ${skip[@]+"${skip[@]}"} -j "$jobs" --timeout 80 --output-on-failure
note "    $(ctest_result "$out/ctest.log")"
step "ctest -L core" 90 "$out/ctest.log" env OMP_NUM_THREADS=1 \
  ctest --test-dir build-torch -L core ${skip[@]+"${skip[@]}"} -j "$jobs" --timeout 80 --output-on-failure
note "    $(ctest_result "$out/ctest.log")"
note "gpu-long-context: $((SECONDS - start))s in all; summary in $summary"
