// bench/bench_family.cpp — a 1B-class model of a newer family (the gemma3_text folder
// bench/pytorch_family_reference.py writes at Gemma-3-1B's sizes, AW_BENCH_MODEL names it): one forward
// over 512 tokens in F32, plain and with every layer's attention kept, beside Hugging Face eager on the
// same folder and machine (docs/performance.md). Skipped without AW_BENCH_MODEL.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace {

constexpr int64_t kTokens = 512;

void BM_FamilyForward512(benchmark::State& state) {
  const char* folder = std::getenv("AW_BENCH_MODEL");
  if (folder == nullptr) {
    state.SkipWithError("AW_BENCH_MODEL names no folder (bench/pytorch_family_reference.py writes one)");
    return;
  }
  aw::configure_allocator();  // as attention-cli does: large blocks from the heap, not fresh mmaps
  const bool capture = state.range(0) == 1;
  static std::unique_ptr<aw::LoadedModel> loaded;  // loaded once, outside the timing
  if (!loaded) loaded = std::make_unique<aw::LoadedModel>(aw::load_checkpoint(folder, torch::kCPU, torch::kFloat32));
  c10::InferenceMode inference;
  torch::manual_seed(1);
  aw::ModelInput input;
  input.input_ids = torch::randint(0, 400, {1, kTokens}, torch::kLong);
  aw::ForwardOptions options;
  options.capture = capture ? aw::CaptureMode::Full : aw::CaptureMode::None;
  loaded->model->forward(input, options);  // warm-up
  for (auto _ : state) benchmark::DoNotOptimize(loaded->model->forward(input, options).logits);
  state.counters["parameters_B"] = static_cast<double>(loaded->parameter_count) / 1e9;
  state.SetLabel(loaded->config.family_name() + (capture ? ", every attention kept" : ", plain"));
}
BENCHMARK(BM_FamilyForward512)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
