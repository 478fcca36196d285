// bench/bench_gguf.cpp — a 1.1B llama layout as a Q4_K_M GGUF against the same weights as a BF16 folder
// (both written by bench/write_gguf_layout.py into AW_BENCH_GGUF): the time to open each, and one forward
// over 512 tokens computing in BF16 (docs/performance.md). The bounds: the GGUF opens in under
// 10 s and runs within 1.3× the BF16 folder. Skipped without AW_BENCH_GGUF.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace {

constexpr int64_t kTokens = 512;

std::string model_path(bool gguf) {
  const char* folder = std::getenv("AW_BENCH_GGUF");
  if (folder == nullptr) return {};
  return std::string(folder) + (gguf ? "/llama1b_q4k.gguf" : "/llama1b_bf16");
}

// Arg 1: the GGUF file, 0: the BF16 folder.
void BM_Open(benchmark::State& state) {
  const auto path = model_path(state.range(0) == 1);
  if (path.empty()) {
    state.SkipWithError("AW_BENCH_GGUF names no folder (bench/write_gguf_layout.py writes one)");
    return;
  }
  aw::configure_allocator();
  for (auto _ : state) benchmark::DoNotOptimize(aw::load_checkpoint(path, torch::kCPU, torch::kBFloat16).model);
  state.SetLabel(state.range(0) == 1 ? "Q4_K_M GGUF, dequantised to bf16" : "BF16 folder, mapped in place");
}
BENCHMARK(BM_Open)->Arg(1)->Arg(0)->Unit(benchmark::kSecond)->Iterations(2);

void BM_Forward512(benchmark::State& state) {
  const auto path = model_path(state.range(0) == 1);
  if (path.empty()) {
    state.SkipWithError("AW_BENCH_GGUF names no folder (bench/write_gguf_layout.py writes one)");
    return;
  }
  aw::configure_allocator();
  const auto loaded = aw::load_checkpoint(path, torch::kCPU, torch::kBFloat16);
  c10::InferenceMode inference;
  torch::manual_seed(1);
  aw::ModelInput input;
  input.input_ids = torch::randint(3, 32000, {1, kTokens}, torch::kLong);
  // Two warm-ups: the process's first forward pays for its allocator's first pages (~0.5 s here), which
  // would fall on whichever model is timed first.
  for (int warm = 0; warm < 2; ++warm) loaded.model->forward(input, {});
  for (auto _ : state) benchmark::DoNotOptimize(loaded.model->forward(input, {}).logits);
  state.SetLabel(state.range(0) == 1 ? "Q4_K_M GGUF, computing in bf16" : "BF16 folder, computing in bf16");
}
BENCHMARK(BM_Forward512)->Arg(1)->Arg(0)->Unit(benchmark::kSecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
