// bench/bench_training.cpp — one training step (forward, loss, backward, clipping, Adam) at the
// sample models' size: transformer_lm is the baseline; bet_sf adds the bird-eye reweighting, bet_sg
// the pointer loss over every layer's attention. Batch 16 × window 64, vocabulary 7000.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/trainer.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <utility>

namespace {

constexpr int64_t kBatch = 16, kWindow = 64, kVocabulary = 7000;

void BM_TrainingStep(benchmark::State& state, const std::string& arch) {
  aw::configure_allocator();
  // LibTorch's threads, then OpenBLAS's own pool: 0 keeps its default (every core), as the first figures
  // measured; 1 stops its workers competing with LibTorch's for the same cores.
  static const int blas_default = aw::blas_threads();
  torch::set_num_threads(static_cast<int>(state.range(0)));
  aw::set_blas_threads(state.range(1) > 0 ? static_cast<int>(state.range(1)) : blas_default);
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

// Thread pairs: (LibTorch, OpenBLAS), 0 = OpenBLAS's default.
void ThreadPairs(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"torch", "blas"})->Unit(benchmark::kMillisecond);
  for (const auto& pair : {std::pair<int, int>{1, 0}, {2, 0}, {1, 1}, {2, 1}}) bench->Args({pair.first, pair.second});
}

BENCHMARK_CAPTURE(BM_TrainingStep, transformer_lm, std::string("transformer_lm"))->Apply(ThreadPairs);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sf, std::string("bet_sf"))->Apply(ThreadPairs);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sg, std::string("bet_sg"))->Args({1, 0})->ArgNames({"torch", "blas"})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
