// bench/bench_llama.cpp — a 1B-class llama at the sizes of Llama-3.2-1B (16 layers, 32 query / 8
// key-value heads of 64, d 2,048, MLP 8,192, vocabulary 128,256, tied output; 1.24 B parameters),
// random BF16 weights written by the bench itself as two safetensors shards with their index
// (~2.5 GB, once, into the temporary folder). Measures (docs/performance.md):
//   - opening it computing in BF16 (the weights used in place from the mapping) next to opening it
//     computing in F32 (every weight converted and copied), with the anonymous memory each adds;
//   - a forward over 512 tokens, plain and with every layer's attention kept, in F32 and BF16.
// PyTorch eager on the same shapes: bench/pytorch_llama_reference.py.
#include "bench/bench_support.h"
#include "models/checkpoint/safetensors.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

constexpr int64_t kLayers = 16, kHeads = 32, kKvHeads = 8, kHeadDim = 64, kD = 2048, kFf = 8192, kVocab = 128256;
static_assert(aw::bench::kLlama1b.layers == kLayers && aw::bench::kLlama1b.d == kD, "the layout the FLOP counts assume");
constexpr int64_t kTokens = 512;

// The kernel's count of this process's anonymous resident memory (heap and private mappings), in
// bytes: what a copy of the weights would add, where a file mapping adds none.
int64_t anonymous_resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::stoll(line.substr(8)) * 1024;
  return 0;
}

const std::string& llama_1b_dir() {
  static const std::string dir = aw::bench::llama_layout_dir("aw-bench-llama-1b", aw::bench::kLlama1b);
  return dir;
}

torch::ScalarType dtype_of(int64_t argument) { return argument == 0 ? torch::kFloat32 : torch::kBFloat16; }

// Opening the folder: config, tokenizer, shards mapped, weights placed (mapped or converted).
void BM_Open(benchmark::State& state) {
  const auto dtype = dtype_of(state.range(0));
  const auto& dir = llama_1b_dir();
  int64_t added = 0, mapped = 0;
  for (auto _ : state) {
    const auto before = anonymous_resident_bytes();
    auto loaded = aw::load_checkpoint(dir, torch::kCPU, dtype);
    added = anonymous_resident_bytes() - before;
    mapped = loaded.mapped_bytes;
    benchmark::DoNotOptimize(loaded.model.get());
  }
  state.counters["mapped_GB"] = static_cast<double>(mapped) / 1e9;
  state.counters["anon_added_GB"] = static_cast<double>(added) / 1e9;
  state.SetLabel(aw::dtype_name(dtype));
}
BENCHMARK(BM_Open)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(2);

// One forward over 512 tokens: range(0) 0 = F32, 1 = BF16; range(1) 1 = every attention kept;
// range(2) LibTorch's intra-op threads (its BLAS's and oneDNN's products use them too).
void BM_Forward512(benchmark::State& state) {
  const auto dtype = dtype_of(state.range(0));
  const bool capture = state.range(1) == 1;
  // LibTorch's threads, which also run its BLAS: what these figures measured
  torch::set_num_threads(static_cast<int>(state.range(2)));
  static std::map<int, aw::LoadedModel> models;  // loaded once per dtype, outside the timing
  auto& loaded = models.try_emplace(static_cast<int>(state.range(0)), aw::load_checkpoint(llama_1b_dir(), torch::kCPU, dtype)).first->second;
  c10::InferenceMode inference;
  aw::ModelInput input;
  input.input_ids = torch::randint(0, 400, {1, kTokens}, torch::kLong);
  aw::ForwardOptions options;
  options.capture = capture ? aw::CaptureMode::Full : aw::CaptureMode::None;
  loaded.model->forward(input, options);  // warm-up: first touch of the mapped pages
  for (auto _ : state) benchmark::DoNotOptimize(loaded.model->forward(input, options).logits);
  // 2 FLOP per weight and token in the projections (the embedding is a lookup; the tied output is
  // a product), plus QKᵀ and PV over the causal half.
  const double weights = static_cast<double>(kLayers) * (2.0 * kD * kHeads * kHeadDim + 2.0 * kD * kKvHeads * kHeadDim +
                                                         3.0 * kD * kFf) + static_cast<double>(kVocab) * kD;
  const double attention = static_cast<double>(kLayers) * kHeads * 2.0 * kTokens * kTokens * kHeadDim;
  state.counters["GFLOP/s"] = benchmark::Counter((2.0 * weights * kTokens + attention) / 1e9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(aw::dtype_name(dtype) + (capture ? ", every attention kept" : "") + ", " +
                 std::to_string(state.range(2)) + " thread(s)");
}
BENCHMARK(BM_Forward512)
    ->Args({0, 0, 1})->Args({0, 1, 1})->Args({1, 0, 1})->Args({1, 1, 1})->Args({1, 0, 2})->Args({1, 1, 2})
    ->Unit(benchmark::kSecond)->Iterations(2);

// The baseline the forward is compared with: the machine's BF16 and F32 matrix products at the
// MLP's shape (512 × 2,048 by 2,048 × 8,192).
void BM_MlpMatmul(benchmark::State& state) {
  const auto dtype = dtype_of(state.range(0));
  c10::InferenceMode inference;
  auto x = torch::randn({kTokens, kD}).to(dtype), w = torch::randn({kFf, kD}).to(dtype);
  torch::linear(x, w);
  for (auto _ : state) benchmark::DoNotOptimize(torch::linear(x, w));
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kTokens * kD * kFf / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(aw::dtype_name(dtype));
}
BENCHMARK(BM_MlpMatmul)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
