// bench/bench_moe.cpp — a mixture of experts at Qwen3-30B-A3B's sizes cut to 4 layers (the qwen3_moe
// folder bench/pytorch_moe_reference.py writes, AW_BENCH_MODEL names it): one BF16 forward over 2,048
// tokens with every layer's attention seen (each tile reduced as it comes, as the analyses read them)
// or kept whole, plain for reference, beside Hugging Face eager's plain forward on the same folder and
// machine (docs/performance.md). Counters: the weights' bytes and the process's peak RSS. Skipped
// without AW_BENCH_MODEL.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <sys/resource.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace {

constexpr int64_t kTokens = 2048;

double peak_rss_gb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1e6;  // kB → GB
}

// Arg: 0 plain, 1 every attention seen tile by tile, 2 every attention kept.
void BM_MoeForward2048(benchmark::State& state) {
  const char* folder = std::getenv("AW_BENCH_MODEL");
  if (folder == nullptr) {
    state.SkipWithError("AW_BENCH_MODEL names no folder (bench/pytorch_moe_reference.py writes one)");
    return;
  }
  aw::configure_allocator();
  static std::unique_ptr<aw::LoadedModel> loaded;  // loaded once, outside the timing
  if (!loaded) loaded = std::make_unique<aw::LoadedModel>(aw::load_checkpoint(folder, torch::kCPU, torch::kBFloat16));
  c10::InferenceMode inference;
  torch::manual_seed(1);
  aw::ModelInput input;
  input.input_ids = torch::randint(0, 400, {1, kTokens}, torch::kLong);
  aw::ForwardOptions options;
  const int64_t mode = state.range(0);
  double seen = 0;
  options.capture = mode == 0 ? aw::CaptureMode::None : mode == 1 ? aw::CaptureMode::Stats : aw::CaptureMode::Full;
  if (mode == 1)
    options.tile_observer = [&](int64_t, int64_t, const torch::Tensor& tile) { seen += tile.sum().item<double>(); };
  loaded->model->forward(input, options);  // warm-up
  for (auto _ : state) benchmark::DoNotOptimize(loaded->model->forward(input, options).logits);
  double weights = 0;
  for (const auto& parameter : loaded->model->module().parameters())
    weights += static_cast<double>(parameter.numel() * parameter.element_size());
  state.counters["weights_GB"] = weights / 1e9;
  state.counters["peak_rss_GB"] = peak_rss_gb();
  state.counters["rows_seen"] = seen;
  state.SetLabel(loaded->config.family_name() +
                 (mode == 0 ? ", plain" : mode == 1 ? ", every attention seen" : ", every attention kept"));
}
BENCHMARK(BM_MoeForward2048)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
