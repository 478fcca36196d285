#!/usr/bin/env bash
# The one command a session with a lent GPU machine runs there, from the repo root with .deps carried
# (scripts/gpu/fetch-gpu-deps.sh made it here): builds build-torch/ against the machine's PyTorch
# (scripts/gpu/build-pytorch.sh), runs the CLI tests with AW_DEVICE=cuda, the core tests, then issue 17's
# benchmarks — bench_gpu (eval, capture, the 144 single-head settings 64 per forward, the ablate sweep,
# importance) beside PyTorch eager on the same GPU, shapes and dtype (bench/pytorch_gpu_reference.py),
# in BF16 and F32 — and last the two-rank --distributed tests over NCCL. Every step has a time limit
# inside one overall deadline (DEADLINE seconds, default 540: the device tool allows 600 a command),
# so a slow step cannot eat the others' time. Logs, results.json and summary.txt go to $OUT (the
# device tool's folder; default build-torch/gpu-out), at most 8 files. The tests that read a sample
# model whose weights did not travel (scripts/gpu/device-tree.sh slim) are left out, with a note.
# Usage: scripts/gpu/gpu-check.sh [--cpu]
#   --cpu  every step on the CPU, small bench shapes, 4× the time limits (no GPU needed): to exercise
#          the script on a small machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/steps.sh "${1:-}"  # start, out, summary, jobs, cpu, scale, deadline; note, step, begin, ctest_result

if [ $cpu -eq 1 ]; then
  export AW_DEVICE=cpu
  bench_env=(AW_BENCH_SHAPE=1,16 AW_BENCH_SWEEP=1,64)
  reference_args=(--device cpu --shape 1,16 --sweep 1,64 --seconds 0.5 --threads 1)
  dtypes=(f32)
else
  export AW_DEVICE=${AW_DEVICE:-cuda}
  bench_env=()
  reference_args=(--device cuda)
  dtypes=(bf16 f32)
fi

# ctest runs a test per core; each would start an OpenMP team of every core for PyTorch's MKL, and
# busy-waiting teams on shared cores made a 2.6-s training test take 140 s (a loaded 2-core VM).
ctest_env=(env OMP_NUM_THREADS=1)

begin gpu-check 330
grep -E '^build-pytorch: torch|c10d process groups|fmt for spdlog' "$out/build.log" | tee -a "$summary"

# The big sample weights do not travel (scripts/gpu/device-tree.sh slim keeps the tree under 64 MiB): the
# tests that read a sample model without its model.safetensors are left out, and said so.
skip=()
{ read -r missing_samples; read -r skipped_count; read -r skip_regex; } < <(python3 scripts/gpu/sample-tests.py build-torch sample_data || printf '\n0\n\n')
if [ -n "$skip_regex" ]; then
  skip=(-E "$skip_regex")
  note "skipped: $skipped_count tests that read sample models whose weights did not travel (sample_data/{${missing_samples// /,}}/model.safetensors: scripts/gpu/device-tree.sh slim); they run where the weights are"
fi
# The published all-MiniLM-L6-v2 (90 MB) is unpacked by scripts/install-engine.sh, which a lent machine
# does not run: its one test runs where the README's commands installed the engine.
if [ ! -f .venv/all-MiniLM-L6-v2/model.safetensors ] && [ -z "${AW_MINILM_DIR:-}" ]; then
  skip=(-E "${skip_regex:+$skip_regex|}MiniLm")
  note "skipped: MiniLm (no .venv/all-MiniLM-L6-v2 here; scripts/install-engine.sh unpacks it)"
fi

step "ctest -L cli" 120 "$out/ctest-cli.log" \
  "${ctest_env[@]}" ctest --test-dir build-torch -L cli -LE distributed ${skip[@]+"${skip[@]}"} -j "$jobs" --timeout 100 --output-on-failure
note "    $(ctest_result "$out/ctest-cli.log")"
step "ctest -L core" 120 "$out/ctest-core.log" \
  "${ctest_env[@]}" ctest --test-dir build-torch -L core ${skip[@]+"${skip[@]}"} -j "$jobs" --timeout 100 --output-on-failure
note "    $(ctest_result "$out/ctest-core.log")"

# Benchmarks: the GPT-2-small checkpoint is written once (/tmp, ~500 MB) by the first bench_gpu run.
bench_dir=$(mktemp -d)
for dtype in "${dtypes[@]}"; do
  step "bench_gpu $dtype" 75 "$out/bench.log" env ${bench_env[@]+"${bench_env[@]}"} AW_BENCH_DTYPE="$dtype" \
    build-torch/bench/bench_gpu --benchmark_out="$bench_dir/ours-$dtype.json" --benchmark_out_format=json
  step "pytorch eager $dtype" 60 "$out/bench.log" env PYTHONUNBUFFERED=1 \
    python3 bench/pytorch_gpu_reference.py "${reference_args[@]}" --dtype "$dtype" --json "$bench_dir/eager-$dtype.json"
done

# Two ranks over c10d: NCCL on a GPU (both ranks share the one GPU here, which NCCL may refuse).
step "ctest distributed" 60 "$out/ctest-distributed.log" \
  "${ctest_env[@]}" ctest --test-dir build-torch -L distributed ${skip[@]+"${skip[@]}"} -j "$jobs" --timeout 50 --output-on-failure
note "    $(ctest_result "$out/ctest-distributed.log")"

# Ours beside eager: bench_gpu's mean time per iteration against the reference's median run.
python3 - "$bench_dir" "$out/results.json" <<'EOF' | tee -a "$summary"
import glob, json, os, sys
folder, target = sys.argv[1], sys.argv[2]
pairs = {"BM_Forward/capture:0": "forward", "BM_Forward/capture:1": "forward_capture", "BM_Eval": "eval",
         "BM_GateSettings": "gate_settings", "BM_SingleHeadSweep": "gate_settings", "BM_Importance": "importance"}
merged = {}
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    try:
        with open(path) as f:
            merged[os.path.basename(path)[:-5]] = json.load(f)
    except (OSError, ValueError) as error:
        print(f"{path}: unreadable ({error})")
with open(target, "w") as f:
    json.dump(merged, f, indent=1)
for dtype in sorted({name.split("-", 1)[1] for name in merged}):
    ours, eager = merged.get("ours-" + dtype), merged.get("eager-" + dtype)
    if not ours or not eager:
        print(f"{dtype}: {'ours' if not ours else 'eager'} missing: no comparison")
        continue
    context = ours.get("context", {})
    print(f"\n{dtype}: ours on {context.get('aw_device')}, shape {context.get('aw_shape')}, {context.get('aw_sweep')}; "
          f"eager: PyTorch {eager['torch']} on {eager['device']}")
    print(f"{'benchmark':26s} {'ours ms':>10s} {'eager ms':>10s} {'ratio':>7s}   (ratio = ours / eager)")
    for bench in ours.get("benchmarks", []):
        name = "/".join(part for part in bench["name"].split("/") if not part.startswith("min_time:"))
        reference = eager["results"].get(pairs.get(name, ""), {}).get("median_ms")
        ms = bench["real_time"] * {"ms": 1, "us": 1e-3, "ns": 1e-6, "s": 1e3}[bench["time_unit"]]
        ratio = f"{ms / reference:7.2f}" if reference else "      -"
        print(f"{name:26s} {ms:10.2f} {reference if reference else float('nan'):10.2f} {ratio}")
EOF
rm -rf "$bench_dir"
note "gpu-check: $((SECONDS - start))s in all; summary in $summary"
