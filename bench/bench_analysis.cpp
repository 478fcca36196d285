// bench/bench_analysis.cpp — the analyses against their floors and baselines, on a random
// 4-layer × 8-head model (d 512, d_ff 2048, vocabulary 8000), 8 windows × 128 tokens:
//  - the single-head ablation sweep (batched, lower layers reused) vs the naive sweep (one full
//    forward per head), and the FLOP floor of the sweep at the measured matmul rate (counters
//    "floor_ms": what the sweep's FLOPs cost at a 1024² matmul's rate, "x_floor": time / floor),
//    and the sweep's matrix products alone (what of the gap the product shapes explain);
//  - stats (streamed capture) vs plain evaluation without capture (tokens/s);
//  - importance (forward + backward per batch) vs one evaluation pass (counter "x_eval"; its FLOP
//    ratio, the floor of that, is "x_eval_flops");
//  - the model after real pruning of half its heads vs the full model (Michel Table 4);
//  - the paired bootstrap (1,000 resamples × 10,000 examples × 144 heads) vs gathering each resample,
//    and ablate's bootstrap of perplexity deltas at that size; the sweep with and without the
//    per-window losses it resamples.
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/statistics/delta_significance.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/heads/head_removal.h"
#include "analysis/statistics/significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/training/evaluation.h"
#include "models/runtime.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <chrono>

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
  // LibTorch's threads, which also run its BLAS: what these figures measured
  torch::set_num_threads(1);
}

// FLOPs of one layer and of the output layer for the bench batch (multiply-adds count 2).
constexpr double kTokens = kWindows * kWindow;
double projection_flops() { return kTokens * 2.0 * kWidth * kWidth; }                   // one of Q, K, V, O
double feed_forward_flops() { return kTokens * 2.0 * 2 * kWidth * kFeedForward; }
double attention_flops() { return 2.0 * 2 * kWindows * kWindow * kWindow * kWidth; }   // QKᵀ and AV
double layer_flops() { return 4 * projection_flops() + feed_forward_flops() + attention_flops(); }
double output_flops() { return 2.0 * kWindows * kWindow * kWidth * kVocabulary; }

// What importance must compute beyond a forward, in units of one forward: the backward to the
// gates needs each product's input gradient only (same FLOPs as the product; attention's two
// products need four), through the output layer and every layer but layer 0, whose attention
// lies below its own gates (only its feed-forward and O projection are crossed).
double importance_flops_over_forward() {
  const double forward = kLayers * layer_flops() + output_flops();
  const double backward = output_flops() + (kLayers - 1) * (layer_flops() + attention_flops()) +
                          feed_forward_flops() + projection_flops();
  return (forward + backward) / forward;
}

using aw::bench::matmul_rate;
using aw::bench::seconds_since;

// Counters: GFLOP, floor_ms (those FLOPs at the matmul rate measured before each iteration) and
// x_floor (each iteration's time over its own floor, averaged).
void BM_SingleHeadSweep(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto data = aw::language_model_data(bench_windows());
  // Baseline pass plus, per head of layer l, layers l..L−1 and the output layer.
  double flops = kLayers * layer_flops() + output_flops();
  for (int64_t layer = 0; layer < kLayers; ++layer) flops += kHeads * ((kLayers - layer) * layer_flops() + output_flops());
  // Untimed first run: a process's first pass faults its memory in (~10 µs a page on these VMs).
  aw::ablate_heads(*model, "bench", data, aw::AblationMode::Single);
  double floor_seconds = 0.0, over_floor = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    const double floor = flops / matmul_rate();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::ablate_heads(*model, "bench", data, aw::AblationMode::Single));
    over_floor += seconds_since(start) / floor;
    floor_seconds += floor;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["GFLOP"] = flops / 1e9;
  state.counters["floor_ms"] = floor_seconds / iterations * 1e3;
  state.counters["x_floor"] = over_floor / iterations;
}
BENCHMARK(BM_SingleHeadSweep)->Unit(benchmark::kMillisecond)->Iterations(2);

// The single-head sweep's evaluation without (0) and with (1) each window's loss kept per setting,
// what the bootstrap resamples: the cost of keeping them over the plain sweep.
void BM_SweepKeepingExamples(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto data = aw::language_model_data(bench_windows());
  const auto& config = model->config();
  std::vector<torch::Tensor> settings{aw::all_heads_on(config)};
  std::vector<int64_t> first_layers{kLayers};
  for (int64_t layer = 0; layer < kLayers; ++layer)
    for (int64_t head = 0; head < kHeads; ++head) {
      auto gates = aw::all_heads_on(config);
      gates[layer][head] = 0.0;
      settings.push_back(gates);
      first_layers.push_back(layer);
    }
  const auto gates = torch::stack(settings);
  const bool keep = state.range(0) == 1;
  aw::ExampleScores examples;
  aw::evaluate_gate_settings(*model, data, gates, first_layers, {}, 0, keep ? &examples : nullptr);  // untimed
  for (auto _ : state)
    benchmark::DoNotOptimize(aw::evaluate_gate_settings(*model, data, gates, first_layers, {}, 0, keep ? &examples : nullptr));
}
BENCHMARK(BM_SweepKeepingExamples)->Arg(0)->Arg(1)->ArgName("keep_examples")->Unit(benchmark::kMillisecond)->Iterations(3);

// The sweep's matrix products alone, in the sweep's shapes and schedule (2048 tokens a forward:
// two settings of the 8 windows; the ablated layer's Q/K/V and attention once a forward; the
// output layer in chunks of 256 positions), with no element-wise work between them. Its time
// over floor_ms is what the product shapes cost; BM_SingleHeadSweep over it is everything else.
void BM_SweepMatmulsOnly(benchmark::State& state) {
  set_up();
  c10::InferenceMode inference;
  const int64_t rows = 2 * kWindows;                                         // settings × windows
  auto x = torch::randn({rows * kWindow, kWidth}), inner = torch::randn({rows * kWindow, kFeedForward});
  auto square = torch::randn({kWidth, kWidth}), up = torch::randn({kFeedForward, kWidth}),
       down = torch::randn({kWidth, kFeedForward}), vocabulary = torch::randn({kVocabulary, kWidth});
  auto queries = torch::randn({rows * kHeads, kWindow, kWidth / kHeads});
  auto probabilities = torch::randn({rows * kHeads, kWindow, kWindow});
  auto layer = [&](int64_t count, bool shared_attention) {
    const auto attended = shared_attention ? x.narrow(0, 0, count / 2) : x.narrow(0, 0, count);
    const auto heads = shared_attention ? queries.narrow(0, 0, queries.size(0) / 2) : queries;
    const auto weights = shared_attention ? probabilities.narrow(0, 0, probabilities.size(0) / 2) : probabilities;
    for (int i = 0; i < 3; ++i) benchmark::DoNotOptimize(torch::linear(attended, square));   // Q, K, V
    benchmark::DoNotOptimize(torch::bmm(heads, heads.transpose(1, 2)));                      // QKᵀ
    benchmark::DoNotOptimize(torch::bmm(weights, heads));                                   // AV
    benchmark::DoNotOptimize(torch::linear(x.narrow(0, 0, count), square));                 // O
    benchmark::DoNotOptimize(torch::linear(x.narrow(0, 0, count), up));                     // fc1
    benchmark::DoNotOptimize(torch::linear(inner.narrow(0, 0, count), down));               // fc2
  };
  auto output = [&](int64_t count) {
    for (int64_t start = 0; start < count; start += 256)
      benchmark::DoNotOptimize(torch::linear(x.narrow(0, start, std::min<int64_t>(256, count - start)), vocabulary));
  };
  for (auto _ : state) {
    for (int64_t l = 0; l < kLayers; ++l) layer(kWindows * kWindow, false);                // baseline pass
    output(kWindows * kWindow);
    for (int64_t ablated = 0; ablated < kLayers; ++ablated)
      for (int64_t forward = 0; forward < kHeads / 2; ++forward) {
        for (int64_t l = ablated; l < kLayers; ++l) layer(rows * kWindow, l == ablated);
        output(rows * kWindow);
      }
  }
}
BENCHMARK(BM_SweepMatmulsOnly)->Unit(benchmark::kMillisecond)->Iterations(2);

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

// keep_examples = 1: every window's loss kept as well (what diag-sweep's bootstrap needs); against 0
// in the same run, the cost of keeping them.
void BM_Evaluate(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const bool keep_examples = state.range(0) != 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(aw::evaluate_perplexity(*model, bench_windows(), {}, {}, keep_examples).metric);
  state.counters["tokens/s"] = benchmark::Counter(kWindows * kWindow, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Evaluate)->Arg(0)->Arg(1)->ArgName("keep_examples")->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Stats(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  for (auto _ : state) benchmark::DoNotOptimize(aw::attention_stats(*model, "bench", bench_windows(), {}));
  state.counters["tokens/s"] = benchmark::Counter(kWindows * kWindow, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Stats)->Unit(benchmark::kMillisecond)->Iterations(5);

// Counters: eval_ms (one evaluation pass, timed before each iteration) and x_eval (importance
// time over evaluation time, both summed over the iterations).
void BM_Importance(benchmark::State& state) {
  set_up();
  auto model = bench_model();
  const auto data = aw::language_model_data(bench_windows());
  // Untimed first runs, as in BM_SingleHeadSweep.
  aw::evaluate_perplexity(*model, bench_windows());
  aw::head_importance(*model, "bench", data);
  double evaluation_seconds = 0.0, importance_seconds = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::evaluate_perplexity(*model, bench_windows()).metric);
    evaluation_seconds += seconds_since(start);
    state.ResumeTiming();
    start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::head_importance(*model, "bench", data));
    importance_seconds += seconds_since(start);
  }
  state.counters["eval_ms"] = evaluation_seconds / static_cast<double>(state.iterations()) * 1e3;
  state.counters["x_eval"] = importance_seconds / evaluation_seconds;
  state.counters["x_eval_flops"] = importance_flops_over_forward();
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

// The paired bootstrap at the size the statistics issue names: 1,000 resamples of 10,000 per-example
// differences for 144 heads (GPT-2 small's 12 × 12), as one product of draw counts; the baseline
// gathers each resample's rows and averages them (index_select, the obvious LibTorch form).
void BM_PairedBootstrap(benchmark::State& state) {
  const auto differences = torch::randn({10000, 144}, torch::kFloat64);
  for (auto _ : state) benchmark::DoNotOptimize(aw::paired_bootstrap(differences, 1000, 1));
}
BENCHMARK(BM_PairedBootstrap)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_PairedBootstrapByGather(benchmark::State& state) {
  const auto differences = torch::randn({10000, 144}, torch::kFloat64);
  for (auto _ : state) {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(1);
    std::vector<torch::Tensor> means;
    for (int64_t b = 0; b < 1000; ++b)
      means.push_back(differences.index_select(0, torch::randint(10000, {10000}, generator, torch::kLong)).mean(0));
    benchmark::DoNotOptimize(torch::stack(means).sort(0));
  }
}
BENCHMARK(BM_PairedBootstrapByGather)->Unit(benchmark::kMillisecond)->Iterations(3);

// What ablate adds at that size: 1,000 resamples of 10,000 windows' losses and tokens for the baseline
// and 144 heads, perplexity recomputed per resample, Holm across the heads.
void BM_DeltaSignificance(benchmark::State& state) {
  aw::ExampleScores scores;
  scores.metric_name = "perplexity";
  scores.counts = torch::full({10000}, 127.0, torch::kFloat64);
  scores.sums = (3.0 + 0.1 * torch::randn({10000, 145}, torch::kFloat64)) * 127.0;
  std::vector<int64_t> heads(144);
  for (int64_t h = 0; h < 144; ++h) heads[h] = h + 1;
  aw::SignificanceOptions options;
  options.resamples = 1000;
  for (auto _ : state) benchmark::DoNotOptimize(aw::delta_significance(scores, 0, heads, options));
}
BENCHMARK(BM_DeltaSignificance)->Unit(benchmark::kMillisecond)->Iterations(3);

BENCHMARK_MAIN();
