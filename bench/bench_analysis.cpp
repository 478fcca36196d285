// bench/bench_analysis.cpp — the analyses against their floors and baselines, on a random
// 4-layer × 8-head model (d 512, d_ff 2048, vocabulary 8000), 8 windows × 128 tokens:
//  - the single-head ablation sweep (batched, lower layers reused) vs the naive sweep (one full
//    forward per head), and the FLOP floor of the sweep at the measured matmul rate (counter
//    "floor_ms": what the sweep's FLOPs cost at the rate of BM_MatmulRate);
//  - stats (streamed capture) vs plain evaluation without capture (tokens/s);
//  - importance (forward + backward per batch) vs one evaluation pass;
//  - the model after real pruning of half its heads vs the full model (Michel Table 4).
#include "analysis/attention_stats.h"
#include "analysis/head_ablation.h"
#include "analysis/head_importance.h"
#include "analysis/head_removal.h"
#include "models/checkpoint.h"
#include "models/evaluation.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

constexpr int64_t kLayers = 4, kHeads = 8, kWidth = 512, kFeedForward = 2048, kVocabulary = 8000;
constexpr int64_t kWindows = 8, kWindow = 128;

std::shared_ptr<aw::AttentionModel> bench_model() {
  static auto model = [] {
    nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", kVocabulary}, {"n_layers", kLayers},
                           {"n_heads", kHeads}, {"d_model", kWidth}, {"d_ff", kFeedForward},
                           {"max_positions", kWindow}, {"dropout", 0.0}};
    torch::manual_seed(1);
    auto created = aw::create_model(aw::parse_model_config(json, "bench config"));
    created->module().eval();
    return created;
  }();
  return model;
}

const std::vector<aw::ModelInput>& bench_windows() {
  static const auto windows = [] {
    std::vector<int64_t> ids(kWindows * kWindow);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7919) % kVocabulary);
    return aw::make_window_batches(ids, kWindow, kWindows);
  }();
  return windows;
}

void set_up() {
  aw::configure_allocator();
  aw::configure_threads(1);
}

// FLOPs of one layer and of the output layer for the bench batch (multiply-adds count 2).
double layer_flops() {
  const double tokens = kWindows * kWindow;
  return tokens * (2.0 * 4 * kWidth * kWidth + 2.0 * 2 * kWidth * kFeedForward) + 2.0 * 2 * kWindows * kWindow * kWindow * kWidth;
}
double output_flops() { return 2.0 * kWindows * kWindow * kWidth * kVocabulary; }

// The matmul rate the floor is computed with: a 1024² float32 product.
double matmul_rate() {
  static const double rate = [] {
    c10::InferenceMode inference;
    auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
    torch::matmul(a, b);
    const auto start = std::chrono::steady_clock::now();
    const int repeats = 20;
    for (int i = 0; i < repeats; ++i) benchmark::DoNotOptimize(torch::matmul(a, b));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return repeats * 2.0 * 1024 * 1024 * 1024 / seconds;
  }();
  return rate;
}

void BM_SingleHeadSweep(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto data = aw::language_model_data(bench_windows());
  // Baseline pass plus, per head of layer l, layers l..L−1 and the output layer.
  double flops = kLayers * layer_flops() + output_flops();
  for (int64_t layer = 0; layer < kLayers; ++layer) flops += kHeads * ((kLayers - layer) * layer_flops() + output_flops());
  for (auto _ : state) benchmark::DoNotOptimize(aw::ablate_heads(*model, "bench", data, aw::AblationMode::Single));
  state.counters["GFLOP"] = flops / 1e9;
  state.counters["floor_ms"] = flops / matmul_rate() * 1e3;
}
BENCHMARK(BM_SingleHeadSweep)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_NaiveSingleHeadSweep(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto& windows = bench_windows();
  for (auto _ : state) {
    benchmark::DoNotOptimize(aw::evaluate_perplexity(*model, windows).metric);
    for (int64_t layer = 0; layer < kLayers; ++layer)
      for (int64_t head = 0; head < kHeads; ++head) {
        aw::ForwardOptions options;
        options.head_gates = torch::ones({kLayers, kHeads});
        options.head_gates[layer][head] = 0.0;
        benchmark::DoNotOptimize(aw::evaluate_perplexity(*model, windows, options).metric);
      }
  }
}
BENCHMARK(BM_NaiveSingleHeadSweep)->Unit(benchmark::kMillisecond)->Iterations(2);

void BM_Evaluate(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  for (auto _ : state) benchmark::DoNotOptimize(aw::evaluate_perplexity(*model, bench_windows()).metric);
  state.counters["tokens/s"] = benchmark::Counter(kWindows * kWindow, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Evaluate)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Stats(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  for (auto _ : state) benchmark::DoNotOptimize(aw::attention_stats(*model, "bench", bench_windows(), {}));
  state.counters["tokens/s"] = benchmark::Counter(kWindows * kWindow, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Stats)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Importance(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto data = aw::language_model_data(bench_windows());
  for (auto _ : state) benchmark::DoNotOptimize(aw::head_importance(*model, "bench", data));
}
BENCHMARK(BM_Importance)->Unit(benchmark::kMillisecond)->Iterations(5);

// Arg: percent of heads physically removed (0 = the full model).
void BM_PrunedForward(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  std::vector<aw::HeadRef> removed;
  for (int64_t i = 0; i < kLayers * kHeads * state.range(0) / 100; ++i) removed.push_back({i % kLayers, i / kLayers});
  auto pruned = removed.empty() ? model : aw::remove_heads(*model, removed);
  for (auto _ : state) benchmark::DoNotOptimize(aw::evaluate_perplexity(*pruned, bench_windows()).metric);
  state.counters["heads"] = static_cast<double>(pruned->config().total_heads());
}
BENCHMARK(BM_PrunedForward)->Arg(0)->Arg(50)->ArgName("percent_pruned")->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
