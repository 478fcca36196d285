// bench/bench_patching.cpp — `patch` (output patching of every head, with DLA) against its FLOP floor on
// the GPT-2-small layout (12 layers × 12 heads = 144 heads, d 768, d_ff 3,072, vocabulary 50,257;
// random weights), IOI-sized prompts of 16 tokens. The floor is the work no patching sweep can skip:
// the clean and corrupted forwards, and for each head of layer l the layers l … L − 1 on its rows and
// the output layer at the last position, at the rate of a 1024² matmul measured beside each run.
// Counters: floor_ms and x_floor (time over floor; the bound is 2 at 64 pairs). AW_BENCH_PAIRS
// sets how many pairs (default 8 on a CPU: the ratio is per pair), AW_DEVICE the device.
#include "analysis/patching/head_patching.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include "bench/bench_support.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>

namespace {

constexpr int64_t kLength = 16, kLayers = 12, kHeads = 12, kWidth = 768, kFeedForward = 3072, kVocabulary = 50257;

int64_t pair_count() {
  const char* given = std::getenv("AW_BENCH_PAIRS");
  return given ? std::max<int64_t>(1, std::atoll(given)) : 8;
}

torch::Device device() {
  const char* given = std::getenv("AW_DEVICE");
  return given ? torch::Device(given) : torch::Device(torch::kCPU);
}


// FLOPs (multiply-adds count 2) of one layer on `tokens` tokens of prompts of kLength.
double layer_flops(double tokens) {
  return tokens * (2.0 * 4 * kWidth * kWidth + 2.0 * 2 * kWidth * kFeedForward + 2.0 * 2 * kLength * kWidth);
}

double floor_flops(int64_t pairs) {
  const double tokens = static_cast<double>(pairs) * kLength;
  const double forwards = 2 * (kLayers * layer_flops(tokens) + 2.0 * pairs * kWidth * kVocabulary);
  double sweep = 0;
  for (int64_t layer = 0; layer < kLayers; ++layer)
    sweep += kHeads * ((kLayers - layer) * layer_flops(tokens) + 2.0 * pairs * kWidth * kVocabulary);
  return forwards + sweep;
}

void BM_PatchEveryHead(benchmark::State& state) {
  aw::configure_allocator();
  const auto loaded = aw::load_checkpoint(aw::bench::gpt2_small_dir(), device());
  const auto made = aw::bench::random_pairs(pair_count(), kLength, kVocabulary);
  aw::PatchSettings settings;
  aw::patch_heads(*loaded.model, {made.front()}, settings);  // untimed first run
  double floor = 0, measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    floor += floor_flops(static_cast<int64_t>(made.size())) / aw::bench::matmul_rate();
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(aw::patch_heads(*loaded.model, made, settings).patched);
    measured += aw::bench::seconds_since(start);
  }
  state.counters["pairs"] = static_cast<double>(made.size());
  state.counters["floor_ms"] = benchmark::Counter(1e3 * floor, benchmark::Counter::kAvgIterations);
  state.counters["x_floor"] = measured / floor;
}
BENCHMARK(BM_PatchEveryHead)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
