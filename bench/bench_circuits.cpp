// bench/bench_circuits.cpp — the circuit analyses against their FLOP floors (docs/circuits.md), each
// floor at the rate of a 1024² matmul measured beside the run (bench_support.h):
//   composition on the Llama-3.2-1B layout (16 layers × 32 heads, 8 key/value heads, d 2,048; random
//     BF16 weights): every pair's Q-, K- and V-composition and each head's copying score. Floor: the
//     products no method can skip — per pair of layers the [H·dh, d] × [d, H·dh] cores (Q) and
//     [Hkv·dh, d] × [d, H·dh] (K, V), and W_E W_U once ([d, V] × [V, d]). The bound: a minute.
//   path patching on the GPT-2-small layout (12 × 12 heads, d 768, vocabulary 50,257): every head into
//     the logits and into layer 10's q, k and v (12 + 12 + 12 receivers), prompts of 16 tokens. Floor:
//     the clean and corrupted forwards and, per (sender, receiver) path of layer 10, the layers 10 … 12
//     on its rows and the output at the last position. AW_BENCH_PAIRS sets the pairs (default 4 on a
//     CPU: the ratio is per pair).
//   edge attribution (EAP) on the GPT-2-small layout over 64 pairs (AW_BENCH_EAP_PAIRS) of 16 tokens,
//     against one forward and backward of the same pairs measured beside it (the clean run's m back to
//     the input embedding, batches of 8). The bound: 3×.
#include "analysis/circuits/composition.h"
#include "analysis/circuits/edge_attribution.h"
#include "analysis/circuits/pair_batches.h"
#include "analysis/circuits/path_patching.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>

namespace {

constexpr int64_t kLength = 16, kLayers = 12, kHeads = 12, kWidth = 768, kFeedForward = 3072, kVocabulary = 50257;
constexpr int64_t kReceiverLayer = 9;  // 0-based: layer 10

int64_t pair_count() {
  const char* given = std::getenv("AW_BENCH_PAIRS");
  return given ? std::max<int64_t>(1, std::atoll(given)) : 4;
}

double composition_floor(const aw::bench::LlamaLayout& l) {
  const double query = 2.0 * l.heads * l.head_dim * l.d * l.heads * l.head_dim;
  const double key_value = 2 * 2.0 * l.kv_heads * l.head_dim * l.d * l.heads * l.head_dim;
  const double layer_pairs = l.layers * (l.layers - 1) / 2.0;
  return layer_pairs * (query + key_value) + 2.0 * l.d * l.vocab * l.d;
}

void BM_CompositionLlama1B(benchmark::State& state) {
  aw::configure_allocator();
  const auto& layout = aw::bench::kLlama1b;
  const auto loaded = aw::load_checkpoint(aw::bench::llama_layout_dir("aw-bench-llama-1b", layout));
  double floor = 0, measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    floor += composition_floor(layout) / aw::bench::matmul_rate();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    const auto weights = aw::head_weights(loaded, "composition", 2, aw::head_weights_dtype(loaded));
    benchmark::DoNotOptimize(aw::composition_scores(weights, {}, nullptr));
    benchmark::DoNotOptimize(aw::head_circuits(weights, 64, true));
    measured += aw::bench::seconds_since(start);
  }
  state.counters["floor_ms"] = benchmark::Counter(1e3 * floor, benchmark::Counter::kAvgIterations);
  state.counters["x_floor"] = measured / floor;
  state.counters["seconds"] = benchmark::Counter(measured, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_CompositionLlama1B)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();


// FLOPs (multiply-adds count 2) of one layer on `tokens` tokens of prompts of kLength.
double layer_flops(double tokens) {
  return tokens * (2.0 * 4 * kWidth * kWidth + 2.0 * 2 * kWidth * kFeedForward + 2.0 * 2 * kLength * kWidth);
}

double path_floor(int64_t pairs) {
  const double tokens = static_cast<double>(pairs) * kLength;
  const double output = 2.0 * kWidth * kVocabulary;  // one position's logits
  const double forwards = 2 * (kLayers * layer_flops(tokens) + pairs * kLength * output);
  const double logits = kLayers * kHeads * pairs * output;
  const double senders = kReceiverLayer * kHeads, receivers = 3.0 * kHeads;
  const double receiver_paths = senders * receivers * ((kLayers - kReceiverLayer) * layer_flops(tokens) + pairs * output);
  return forwards + logits + receiver_paths;
}

void BM_PathPatchGpt2Small(benchmark::State& state) {
  aw::configure_allocator();
  const auto loaded = aw::load_checkpoint(aw::bench::gpt2_small_dir());
  const auto made = aw::bench::random_pairs(pair_count(), kLength, kVocabulary);
  aw::PathPatchSettings settings;
  settings.receivers = aw::layer_receivers(loaded.config, kReceiverLayer);
  settings.receivers.insert(settings.receivers.begin(), aw::PathReceiver{});
  aw::path_patch(*loaded.model, {made.front()}, aw::PathPatchSettings{});  // untimed first run
  double floor = 0, measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    floor += path_floor(static_cast<int64_t>(made.size())) / aw::bench::matmul_rate();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::path_patch(*loaded.model, made, settings).patched);
    measured += aw::bench::seconds_since(start);
  }
  state.counters["pairs"] = static_cast<double>(made.size());
  state.counters["paths"] = static_cast<double>(kLayers * kHeads + kReceiverLayer * kHeads * 3 * kHeads);
  state.counters["floor_ms"] = benchmark::Counter(1e3 * floor, benchmark::Counter::kAvgIterations);
  state.counters["x_floor"] = measured / floor;
}
BENCHMARK(BM_PathPatchGpt2Small)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// One forward and backward of every pair: m of the clean run back to the input embedding, 8 pairs a batch.
double forward_backward_seconds(aw::AttentionModel& model, const std::vector<aw::PatchPair>& pairs) {
  const auto start = std::chrono::steady_clock::now();
  for (const auto& indices : aw::batches_by_length(pairs, 8)) {
    const auto batch = aw::make_batch(pairs, indices, torch::kCPU);
    torch::AutoGradMode on(true);
    const auto input = model.embed(batch.clean).detach().requires_grad_(true);
    const auto last = model.run_layers(input, batch.clean, 0, model.config().n_blocks, aw::ForwardOptions{}).hidden;
    const auto m = aw::pair_metric(aw::last_logits(model, last, batch), batch).sum();
    benchmark::DoNotOptimize(torch::autograd::grad({m}, {input})[0]);
  }
  return aw::bench::seconds_since(start);
}

void BM_EapGpt2Small(benchmark::State& state) {
  aw::configure_allocator();
  const auto loaded = aw::load_checkpoint(aw::bench::gpt2_small_dir());
  const char* given = std::getenv("AW_BENCH_EAP_PAIRS");
  const auto made = aw::bench::random_pairs(given ? std::max<int64_t>(1, std::atoll(given)) : 64, kLength, kVocabulary);
  aw::edge_attribution(*loaded.model, {made.front()}, {});  // untimed first run
  double baseline = 0, measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    baseline += forward_backward_seconds(*loaded.model, made);
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::edge_attribution(*loaded.model, made, {}).scores);
    measured += aw::bench::seconds_since(start);
  }
  state.counters["pairs"] = static_cast<double>(made.size());
  state.counters["forward_backward_s"] = benchmark::Counter(baseline, benchmark::Counter::kAvgIterations);
  state.counters["x_forward_backward"] = measured / baseline;
}
BENCHMARK(BM_EapGpt2Small)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
