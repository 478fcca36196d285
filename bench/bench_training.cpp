// bench/bench_training.cpp — one training step (forward, loss, backward, clipping, Adam) at the
// sample models' size: transformer_lm is the baseline; bet_sf adds the bird-eye reweighting, bet_sg
// the pointer loss over every layer's attention. Batch 16 × window 64, vocabulary 7000.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/trainer.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

constexpr int64_t kBatch = 16, kWindow = 64, kVocabulary = 7000;

void BM_TrainingStep(benchmark::State& state, const std::string& arch) {
  aw::configure_allocator();
  // LibTorch's threads only (not aw::configure_threads, which caps OpenBLAS too): what these figures measured
  torch::set_num_threads(static_cast<int>(state.range(0)));
  nlohmann::json json = {{"model_type", arch}, {"vocab_size", kVocabulary}, {"n_layers", 2}, {"n_heads", 4},
                         {"d_model", 128},     {"d_ff", 512},               {"max_positions", kWindow},
                         {"dropout", 0.1}};
  torch::manual_seed(1);
  auto model = aw::create_model(aw::parse_model_config(json, "bench config"));
  model->module().train();
  torch::optim::Adam optimizer(model->module().parameters(), torch::optim::AdamOptions(1e-3).betas({0.9, 0.98}));
  aw::TrainSettings settings;
  settings.pointer_weight = arch == "bet_sg" ? 1.0 : 0.0;
  aw::ModelInput input;
  input.input_ids = torch::randint(0, kVocabulary, {kBatch, kWindow}, torch::kLong);
  input.attention_mask = torch::ones({kBatch, kWindow}, torch::kLong);
  // Hints: any position at or left of each query (here: the previous one).
  const auto hints = arch == "bet_sg" ? (torch::arange(kWindow, torch::kLong) - 1).clamp_min(0).expand({kBatch, kWindow})
                                      : torch::Tensor();
  aw::training_step(*model, optimizer, input, hints, settings);  // warm-up
  for (auto _ : state) benchmark::DoNotOptimize(aw::training_step(*model, optimizer, input, hints, settings).loss);
  state.counters["tokens/s"] = benchmark::Counter(kBatch * (kWindow - 1), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_CAPTURE(BM_TrainingStep, transformer_lm, std::string("transformer_lm"))->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sf, std::string("bet_sf"))->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sg, std::string("bet_sg"))->Arg(1)->ArgName("threads")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
