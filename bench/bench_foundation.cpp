// bench/bench_foundation.cpp — the foundation's performance claims, each next to its baseline:
//  - matmul rate (1024² float32): is a fast BLAS in use?
//  - softmax over 8×8×256×256 with 1 and 2 LibTorch threads: the default thread count;
//  - loading a GPT-2-small-sized checkpoint (12 layers, 12 heads, d 768), written once at random;
//  - a forward over 8×256 tokens with full attention capture vs. without;
//  - attend's binary export of 1,024 tokens (every layer to safetensors, written as computed) vs.
//    the forward through the same layers without capture.
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_file_writer.h"
#include "bench/bench_support.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/checkpoint/safetensors.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;

void BM_Matmul1024(benchmark::State& state) {
  // LibTorch's threads, which also run its BLAS: what these figures measured
  torch::set_num_threads(static_cast<int>(state.range(0)));
  c10::InferenceMode inference;
  auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * 1024 * 1024 * 1024, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul1024)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond);

void BM_Softmax(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  c10::InferenceMode inference;
  auto scores = torch::randn({8, 8, 256, 256});
  for (auto _ : state) benchmark::DoNotOptimize(torch::softmax(scores, -1));
}
BENCHMARK(BM_Softmax)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->MinTime(2.0);

using aw::bench::gpt2_small_dir;

void BM_LoadGpt2Small(benchmark::State& state) {
  torch::set_num_threads(1);
  const auto dir = gpt2_small_dir();
  // Warm the page cache once, as a second load would find it: the benchmark measures our work.
  { std::ifstream in(dir + "/model.safetensors", std::ios::binary); std::vector<char> sink(1 << 20); while (in.read(sink.data(), sink.size())) {} }
  for (auto _ : state) {
    auto loaded = aw::load_checkpoint(dir, torch::kCPU);
    benchmark::DoNotOptimize(loaded.parameter_count);
  }
  state.counters["file_MB"] = static_cast<double>(fs::file_size(dir + "/model.safetensors")) / 1e6;
}
BENCHMARK(BM_LoadGpt2Small)->Unit(benchmark::kMillisecond)->Iterations(3);

// Arg 0: no capture; 1: full capture of every layer's [8, 12, 256, 256] probabilities.
// Arg 1: LibTorch intra-op threads.
void BM_ForwardGpt2Small(benchmark::State& state) {
  aw::configure_allocator();
  torch::set_num_threads(static_cast<int>(state.range(1)));
  static auto loaded = aw::load_checkpoint(gpt2_small_dir(), torch::kCPU);
  c10::InferenceMode inference;
  aw::ModelInput input;
  input.input_ids = torch::randint(0, 50257, {8, 256}, torch::kLong);
  aw::ForwardOptions options;
  options.capture = state.range(0) ? aw::CaptureMode::Full : aw::CaptureMode::None;
  loaded.model->forward(input, options);  // untimed warm-up: the allocator's first touch of each buffer
  for (auto _ : state) {
    auto result = loaded.model->forward(input, options);
    benchmark::DoNotOptimize(result.logits);
  }
  state.counters["tokens/s"] = benchmark::Counter(8 * 256, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ForwardGpt2Small)->ArgsProduct({{0, 1}, {1, 2}})->ArgNames({"capture", "threads"})->Unit(benchmark::kMillisecond)->Iterations(3);

// One text of 1,024 random tokens through every layer (no output head, as the export runs):
// arg 0 = the plain forward (baseline), 1 = export F32, 2 = export F16 to a safetensors file in the
// temporary folder (the page cache absorbs the writes on these VMs: 604 MB and 302 MB).
void BM_Attention1024(benchmark::State& state) {
  aw::configure_allocator();
  torch::set_num_threads(1);
  static auto loaded = aw::load_checkpoint(gpt2_small_dir(), torch::kCPU);
  aw::Encoding encoding;
  encoding.ids.resize(1024);
  for (size_t i = 0; i < encoding.ids.size(); ++i) {
    encoding.ids[i] = static_cast<int64_t>(1 + (i * 7919) % 50256);  // spread over the vocabulary
    encoding.tokens.push_back("t" + std::to_string(encoding.ids[i]));
  }
  aw::AttentionExportSettings settings;
  settings.path = (fs::temp_directory_path() / "aw-bench-attention.safetensors").string();
  settings.dtype = state.range(0) == 2 ? torch::kFloat16 : torch::kFloat32;
  auto run = [&] {
    if (state.range(0) == 0) {
      c10::InferenceMode inference;
      const auto input = aw::encoding_input(encoding);
      benchmark::DoNotOptimize(loaded.model->run_layers(loaded.model->embed(input), input, 0, 12, {}).hidden);
    } else {
      aw::export_attention(*loaded.model, "gpt2-small", encoding, settings);
    }
  };
  run();  // untimed warm-up
  for (auto _ : state) run();
  fs::remove(settings.path);
}
BENCHMARK(BM_Attention1024)->Arg(0)->Arg(1)->Arg(2)->ArgName("export")->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
