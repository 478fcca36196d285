// bench/bench_head_types.cpp — head-types against a plain forward with capture, on the GPT-2-small
// layout (12 layers × 12 heads, d 768; random weights), sequences of 512 tokens. Both run the layers
// alone with each layer's attention probabilities computed tile by tile (what head-types needs); the
// baseline's observer does nothing with them, head-types reduces them to its six scores. Counter
// x_capture: head-types time over the baseline's, both summed over the iterations (the bound
// is 1.2 at 64 sequences; AW_BENCH_SEQUENCES sets how many, default 8 on a CPU — the ratio is per
// sequence). Also the full forward with capture and logits, for scale (x_forward), and the reductions
// alone on one layer (BM_Reduce).
//   build/bench/bench_head_types [--benchmark_filter=…]      (AW_DEVICE=cuda on a GPU)
#include "analysis/head_types/head_types.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>

namespace {

constexpr int64_t kLength = 512, kBatch = 8;

int64_t sequences() {
  const char* given = std::getenv("AW_BENCH_SEQUENCES");
  return given ? std::max<int64_t>(1, std::atoll(given)) : 8;
}

torch::Device device() {
  const char* given = std::getenv("AW_DEVICE");
  return given ? torch::Device(given) : torch::Device(torch::kCPU);
}

const aw::LoadedModel& loaded() {
  static const auto model = aw::load_checkpoint(aw::bench::gpt2_small_dir(), device());
  return model;
}

std::vector<aw::ModelInput> batches() {
  std::vector<aw::ModelInput> made;
  for (int64_t first = 0; first < sequences(); first += kBatch) {
    const int64_t count = std::min(kBatch, sequences() - first);
    aw::ModelInput input;
    input.input_ids = torch::randint(1, 50257, {count, kLength}, torch::kLong).to(device());
    made.push_back(input);
  }
  return made;
}

// The baseline: every layer run with its probabilities computed and handed to an observer that
// keeps nothing.
void capture_forward(const std::vector<aw::ModelInput>& inputs, bool logits) {
  c10::InferenceMode inference;
  auto& model = *loaded().model;
  aw::ForwardOptions options;
  options.capture = aw::CaptureMode::Stats;
  options.tile_observer = [](int64_t, int64_t, const torch::Tensor& tile) { benchmark::DoNotOptimize(tile.data_ptr()); };
  for (const auto& input : inputs) {
    if (logits) benchmark::DoNotOptimize(model.forward(input, options).logits);
    else benchmark::DoNotOptimize(model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options).hidden);
  }
  if (device().is_cuda()) torch::cuda::synchronize();
}

void BM_HeadTypes(benchmark::State& state) {
  aw::configure_allocator();
  torch::manual_seed(1);
  const auto inputs = batches();
  capture_forward(inputs, false);  // untimed first runs: allocations, kernels
  aw::head_type_sums(*loaded().model, inputs, {});
  double baseline = 0, forward = 0, measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto start = std::chrono::steady_clock::now();
    capture_forward(inputs, false);
    baseline += aw::bench::seconds_since(start);
    start = std::chrono::steady_clock::now();
    capture_forward(inputs, true);
    forward += aw::bench::seconds_since(start);
    state.ResumeTiming();
    start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::head_type_sums(*loaded().model, inputs, {}));
    measured += aw::bench::seconds_since(start);
  }
  state.counters["sequences"] = static_cast<double>(sequences());
  state.counters["capture_ms"] = benchmark::Counter(1e3 * baseline, benchmark::Counter::kAvgIterations);
  state.counters["x_capture"] = measured / baseline;
  state.counters["x_forward"] = measured / forward;
}
BENCHMARK(BM_HeadTypes)->Unit(benchmark::kMillisecond)->Iterations(2);

// The reductions alone, on one layer's 8 × 12 × 512 × 512 causal probabilities: what head-types adds
// per layer and batch to the forward (the entries each score reads are built once, then reused).
void BM_Reduce(benchmark::State& state) {
  aw::configure_allocator();
  c10::InferenceMode inference;
  torch::manual_seed(1);
  const auto scores = torch::randn({kBatch, 12, kLength, kLength}).to(device());
  const auto causal = torch::ones({kLength, kLength}, torch::kBool).triu(1).to(device());
  const auto tile = torch::softmax(scores.masked_fill(causal, -INFINITY), -1);
  const auto ids = torch::randint(1, 50257, {kBatch, kLength}, torch::kLong).to(device());
  const auto valid = torch::ones_like(ids, torch::kBool);
  aw::HeadTypeAccumulator sums({12}, device(), true);
  for (auto _ : state) {
    sums.add(0, tile, ids, valid);
    if (device().is_cuda()) torch::cuda::synchronize();
  }
}
BENCHMARK(BM_Reduce)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
