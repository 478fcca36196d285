// bench/bench_gpu.cpp — the analyses of issue 17 on the device AW_DEVICE names (default auto: CUDA
// when present), on the GPT-2-small layout of bench_foundation, beside bench/pytorch_gpu_reference.py
// (PyTorch eager, the same shapes, dtype and device; scripts/gpu/gpu-check.sh runs both):
//   Forward/capture:0|1  logits of B × T tokens, and the same keeping every layer's probabilities
//   Eval                 perplexity of those windows (forward + loss, the result back on the CPU)
//   GateSettings         all 144 single-head settings over W windows, S settings per forward
//                        (evaluate_gate_settings from layer 0: what a batched eager sweep computes)
//   SingleHeadSweep      ablate_heads as the CLI runs it (lower layers reused, rows per forward
//                        as default_batch_rows chooses for the device)
//   Importance           I_h: forward and backward to the gates of the B × T windows
// Shapes: AW_BENCH_SHAPE=B,T (default 8,256), AW_BENCH_SWEEP=W,S (default 2,64); dtype:
// AW_BENCH_DTYPE=f32|bf16|f16|auto (default auto: BF16 on CUDA, F32 on the CPU, as the CLI).
#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "models/training/evaluation.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace {

std::pair<int64_t, int64_t> shape_from(const char* variable, std::pair<int64_t, int64_t> fallback) {
  const char* text = std::getenv(variable);
  if (!text || !*text) return fallback;
  const std::string value = text;
  const auto comma = value.find(',');
  if (comma == std::string::npos) throw std::runtime_error(std::string(variable) + " must be two numbers A,B, got '" + value + "'");
  return {std::stoll(value.substr(0, comma)), std::stoll(value.substr(comma + 1))};
}

const auto kShape = shape_from("AW_BENCH_SHAPE", {8, 256});  // windows × tokens
const auto kSweep = shape_from("AW_BENCH_SWEEP", {2, 64});   // windows, settings per forward

const char* environment_or(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

const aw::LoadedModel& bench_model() {
  static const auto loaded = [] {
    const auto device = aw::resolve_device(environment_or("AW_DEVICE", "auto"));
    return aw::load_checkpoint(aw::bench::gpt2_small_dir(), device,
                               aw::parse_compute_dtype(environment_or("AW_BENCH_DTYPE", "auto")));
  }();
  return loaded;
}

// `windows` windows of `length` tokens spread over the vocabulary, as one batch.
std::vector<aw::ModelInput> bench_batches(int64_t windows, int64_t length) {
  std::vector<int64_t> ids(windows * length);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(1 + (i * 7919) % 50256);
  return aw::make_window_batches(ids, length, windows);
}

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

void set_up() {
  aw::configure_allocator();
  aw::configure_threads(0);  // AW_THREADS, else the default; the GPU runs the work itself
}

void BM_Forward(benchmark::State& state) {
  set_up();
  const auto& loaded = bench_model();
  c10::InferenceMode inference;
  const auto input = bench_batches(kShape.first, kShape.second).front().to(loaded.device);
  aw::ForwardOptions options;
  options.capture = state.range(0) ? aw::CaptureMode::Full : aw::CaptureMode::None;
  loaded.model->forward(input, options);  // untimed warm-up (allocator, kernels' first launch)
  synchronize(loaded.device);
  for (auto _ : state) {
    auto result = loaded.model->forward(input, options);
    synchronize(loaded.device);
    benchmark::DoNotOptimize(result.logits);
  }
  state.counters["tokens/s"] = benchmark::Counter(kShape.first * kShape.second, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Forward)->Arg(0)->Arg(1)->ArgName("capture")->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_Eval(benchmark::State& state) {
  set_up();
  const auto& loaded = bench_model();
  const auto batches = bench_batches(kShape.first, kShape.second);
  aw::evaluate_perplexity(*loaded.model, batches);  // untimed warm-up
  for (auto _ : state) benchmark::DoNotOptimize(aw::evaluate_perplexity(*loaded.model, batches).metric);
  state.counters["tokens/s"] = benchmark::Counter(kShape.first * kShape.second, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Eval)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_GateSettings(benchmark::State& state) {
  set_up();
  const auto& loaded = bench_model();
  const auto& config = loaded.model->config();
  const auto data = aw::language_model_data(bench_batches(kSweep.first, kShape.second));
  const int64_t settings = config.n_blocks * config.max_heads();
  auto gates = aw::all_heads_on(config).unsqueeze(0).repeat({settings, 1, 1});  // [S, L, H]
  for (int64_t s = 0; s < settings; ++s) gates[s][s / config.max_heads()][s % config.max_heads()] = 0.0;
  const int64_t rows = kSweep.second * kSweep.first;  // settings per forward × windows
  aw::evaluate_gate_settings(*loaded.model, data, gates, 0, {}, rows);  // untimed warm-up
  for (auto _ : state) benchmark::DoNotOptimize(aw::evaluate_gate_settings(*loaded.model, data, gates, 0, {}, rows));
  state.counters["settings"] = static_cast<double>(settings);
  state.counters["settings_per_forward"] = static_cast<double>(kSweep.second);
  state.counters["tokens/s"] = benchmark::Counter(static_cast<double>(settings * kSweep.first * kShape.second),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GateSettings)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_SingleHeadSweep(benchmark::State& state) {
  set_up();
  const auto& loaded = bench_model();
  const auto data = aw::language_model_data(bench_batches(kSweep.first, kShape.second));
  aw::ablate_heads(*loaded.model, "bench", data, aw::AblationMode::Single);  // untimed warm-up
  for (auto _ : state) benchmark::DoNotOptimize(aw::ablate_heads(*loaded.model, "bench", data, aw::AblationMode::Single));
}
BENCHMARK(BM_SingleHeadSweep)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_Importance(benchmark::State& state) {
  set_up();
  const auto& loaded = bench_model();
  const auto data = aw::language_model_data(bench_batches(kShape.first, kShape.second));
  aw::head_importance(*loaded.model, "bench", data);  // untimed warm-up
  for (auto _ : state) benchmark::DoNotOptimize(aw::head_importance(*loaded.model, "bench", data));
  state.counters["tokens/s"] = benchmark::Counter(kShape.first * kShape.second, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Importance)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // Loaded (the checkpoint written on a first run) before any timing, and named in the output.
  set_up();
  const auto& loaded = bench_model();
  benchmark::AddCustomContext("aw_device", aw::describe_device(loaded.device));
  benchmark::AddCustomContext("aw_dtype", aw::dtype_name(loaded.dtype));
  benchmark::AddCustomContext("aw_shape", std::to_string(kShape.first) + "x" + std::to_string(kShape.second));
  benchmark::AddCustomContext("aw_sweep", std::to_string(kSweep.first) + " windows, " + std::to_string(kSweep.second) +
                                              " settings per forward");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
