// bench/bench_gpu_long_context.cpp — issue 38's figures on a GPU (AW_DEVICE, default auto), each
// against its baseline in the same run (docs/long-context.md):
//   StatsAtLength   `stats` (Bird-Eye Table 1 over every layer's tiles, explicit probabilities tile by
//                   tile) against the plain forward with fused attention, on the Llama-3.1-8B layout
//                   (random BF16 weights, bench_support.h) at 32,768 tokens: seconds, and the peak
//                   memory LibTorch's CUDA allocator held over the weights;
//   AblateSweep/fused:0|1  the single-head `ablate` sweep (every head of every layer, lower layers
//                   reused) over one window of 2,048 tokens on the Llama-3.2-1B layout, with the
//                   explicit path (--explicit-attention) and with the fused kernel.
// Sizes for a small machine: AW_BENCH_LAYOUT and AW_BENCH_SWEEP_LAYOUT = 8b|1b|small, AW_BENCH_TOKENS
// and AW_BENCH_SWEEP_TOKENS; AW_BENCH_DTYPE (default bf16; f32 where BF16 products are slow). LibTorch 1.13 (Debian's) has no fused kernel: both sweeps take the
// explicit path there, and the bench says so.
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/core/corpus_data.h"
#include "analysis/heads/head_ablation.h"
#include "bench/bench_support.h"
#include "models/attention_path.h"
#include "models/memory_budget.h"
#include "models/runtime.h"
#include "models/text/corpus.h"

#include <benchmark/benchmark.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#ifdef AW_CUDA_MEMORY_STATS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

namespace {

const char* environment_or(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

int64_t tokens_from(const char* variable, int64_t fallback) { return std::stoll(environment_or(variable, std::to_string(fallback).c_str())); }

aw::bench::LlamaLayout layout_from(const char* variable, const char* fallback) {
  const std::string name = environment_or(variable, fallback);
  if (name == "8b") return aw::bench::kLlama8b;
  if (name == "1b") return aw::bench::kLlama1b;
  if (name == "small") return {4, 8, 2, 64, 512, 1536, 32000};
  throw std::runtime_error(std::string(variable) + " must be 8b, 1b or small, got '" + name + "'");
}

torch::Device bench_device() { return aw::resolve_device(environment_or("AW_DEVICE", "auto")); }

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// The bytes the device's allocator holds now, and its high-water mark since the last reset (CUDA
// with LibTorch's own allocator headers; elsewhere −1: not measured).
struct DeviceMemory {
  int64_t current = -1, peak = -1;
};
DeviceMemory device_memory(const torch::Device& device, bool reset_peak = false) {
#ifdef AW_CUDA_MEMORY_STATS
  if (device.is_cuda()) {
    namespace allocator = c10::cuda::CUDACachingAllocator;
    if (reset_peak) allocator::resetPeakStats(device.index());
    const auto stats = allocator::getDeviceStats(device.index());
    return {stats.allocated_bytes[0].current, stats.allocated_bytes[0].peak};  // [0]: every pool together
  }
#endif
  (void)device;
  (void)reset_peak;
  return {};
}

struct Measured {
  double seconds = 0;
  double peak_over_start_gb = -1;  // the allocator's peak during the call over what it held before
};

Measured measure(const torch::Device& device, const std::function<void()>& call) {
  synchronize(device);
  const auto before = device_memory(device, /*reset_peak=*/true);
  const auto start = std::chrono::steady_clock::now();
  call();
  synchronize(device);
  Measured measured;
  measured.seconds = aw::bench::seconds_since(start);
  const auto after = device_memory(device);
  if (after.peak >= 0) measured.peak_over_start_gb = static_cast<double>(after.peak - before.current) / 1e9;
  return measured;
}

aw::LoadedModel& loaded(const aw::bench::LlamaLayout& layout) {
  static std::map<int64_t, aw::LoadedModel> models;  // by width: one model per layout
  auto found = models.find(layout.d);
  if (found == models.end()) {
    const auto device = bench_device();
    const auto dir = aw::bench::llama_layout_dir("aw-bench-llama-d" + std::to_string(layout.d) + "-l" +
                                                     std::to_string(layout.layers), layout);
    const auto dtype = aw::parse_compute_dtype(environment_or("AW_BENCH_DTYPE", "bf16"));
    found = models.emplace(layout.d, aw::load_checkpoint(dir, device, dtype)).first;
    if (device.is_cpu()) aw::configure_threads(0);  // every core
  }
  return found->second;
}

aw::ModelInput random_tokens(int64_t length, int64_t vocabulary, const torch::Device& device) {
  torch::manual_seed(5);
  aw::ModelInput input;
  input.input_ids = torch::randint(0, vocabulary, {1, length}, torch::kLong);
  return input.to(device);
}

void run_plain(aw::AttentionModel& model, const aw::ModelInput& input) {
  c10::InferenceMode inference;
  model.run_layers(model.embed(input), input, 0, model.config().n_blocks, {});
}

void BM_StatsAtLength(benchmark::State& state) {
  const auto layout = layout_from("AW_BENCH_LAYOUT", "8b");
  const int64_t tokens = tokens_from("AW_BENCH_TOKENS", 32768);
  auto& model = loaded(layout);
  const auto weights = device_memory(model.device);
  const auto input = random_tokens(tokens, layout.vocab, model.device);
  run_plain(*model.model, random_tokens(256, layout.vocab, model.device));  // untimed: kernels' first launch
  Measured forward, stats;
  for (auto _ : state) {
    forward = measure(model.device, [&] { run_plain(*model.model, input); });
    stats = measure(model.device, [&] { aw::attention_stats(*model.model, "llama", {input}, {}); });
  }
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["forward_s"] = forward.seconds;
  state.counters["stats_s"] = stats.seconds;
  state.counters["x_forward"] = stats.seconds / forward.seconds;
  state.counters["weights_GB"] = weights.current >= 0 ? weights.current / 1e9 : -1;
  state.counters["forward_peak_GB_over_weights"] = forward.peak_over_start_gb;
  state.counters["stats_peak_GB_over_weights"] = stats.peak_over_start_gb;
  state.counters["budget_MB"] = static_cast<double>(aw::attention_memory_budget()) / (1 << 20);
  state.SetLabel(std::string("forward: fused") +
                 " on " + aw::describe_device(model.device));
}
BENCHMARK(BM_StatsAtLength)->Unit(benchmark::kSecond)->Iterations(1);

void BM_AblateSweep(benchmark::State& state) {
  const auto layout = layout_from("AW_BENCH_SWEEP_LAYOUT", "1b");
  const int64_t tokens = tokens_from("AW_BENCH_SWEEP_TOKENS", 2048);
  auto& model = loaded(layout);
  const bool fused = state.range(0) != 0;
  std::vector<int64_t> ids(tokens);
  for (int64_t i = 0; i < tokens; ++i) ids[i] = 1 + (i * 7919) % (layout.vocab - 1);
  const auto data = aw::language_model_data(aw::make_window_batches(ids, tokens, 1));  // one window
  aw::set_fused_attention_allowed(fused);
  run_plain(*model.model, random_tokens(256, layout.vocab, model.device));  // untimed: kernels' first launch
  double baseline = 0;
  for (auto _ : state) {
    const auto result = aw::ablate_heads(*model.model, "bench", data, aw::AblationMode::Single);
    synchronize(model.device);
    baseline = result.baseline;
  }
  aw::set_fused_attention_allowed(true);
  state.counters["settings"] = static_cast<double>(layout.layers * layout.heads);
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["baseline_ppl"] = baseline;
  state.SetLabel(fused ? "fused attention" : "explicit attention");
}
BENCHMARK(BM_AblateSweep)->ArgName("fused")->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("aw_device", aw::describe_device(bench_device()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
