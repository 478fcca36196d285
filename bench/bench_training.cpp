// bench/bench_training.cpp — one training step (forward, loss, backward, clipping, Adam) at the
// sample models' size: transformer_lm is the baseline; bet_sf adds the bird-eye reweighting, bet_sg
// the pointer loss over every layer's attention. Batch 16 × window 64, vocabulary 7000. Then the study
// LM's step (6 layers, d 256, window 128, WikiText-2's 33,278 words) at batches 16 and 64 against the
// step it replaced, which held the batch's whole [B, n, V] logits and their gradient.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/evaluation.h"
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

// The training step before the output layer ran in chunks: the whole forward's logits, their cross-entropy,
// one backward. The baseline of BM_StudyStep.
aw::StepLosses whole_logits_step(aw::AttentionModel& model, torch::optim::Optimizer& optimizer,
                                 const aw::ModelInput& input) {
  optimizer.zero_grad();
  const auto sums = aw::language_model_loss(model.forward(input).logits, input);
  aw::StepLosses losses{sums.total / sums.count, torch::Tensor(), sums.count};
  losses.loss.backward();
  torch::nn::utils::clip_grad_norm_(model.module().parameters(), 1.0);
  optimizer.step();
  return losses;
}

// One thread, as a CPU lane of scripts/study/train-models.sh runs. Args: batch, and positions per chunk of the
// output layer: −1 the whole logits (the old step), 0 the default (token_loss.h), or that many.
void BM_StudyStep(benchmark::State& state) {
  aw::configure_allocator();
  torch::set_num_threads(1);
  aw::set_blas_threads(1);
  const int64_t batch = state.range(0), window = 128, vocabulary = 33278;
  nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", vocabulary}, {"n_layers", 6}, {"n_heads", 8},
                         {"d_model", 256}, {"d_ff", 1024}, {"max_positions", window}, {"dropout", 0.1}};
  torch::manual_seed(1);
  auto model = aw::create_model(aw::parse_model_config(json, "bench config"));
  model->module().train();
  torch::optim::Adam optimizer(model->module().parameters(), torch::optim::AdamOptions(1e-3).betas({0.9, 0.98}));
  aw::ModelInput input;
  input.input_ids = torch::randint(0, vocabulary, {batch, window}, torch::kLong);
  input.attention_mask = torch::ones({batch, window}, torch::kLong);
  aw::TrainSettings settings;
  settings.clip = 1.0;
  auto step = [&] {
    if (state.range(1) < 0) return whole_logits_step(*model, optimizer, input);
    optimizer.zero_grad();  // training_step's own sequence, with the chunk size given
    auto losses = aw::backward_training_losses(*model, input, torch::Tensor(), settings, state.range(1));
    torch::nn::utils::clip_grad_norm_(model->module().parameters(), settings.clip);
    optimizer.step();
    return losses;
  };
  step();  // warm-up
  for (auto _ : state) benchmark::DoNotOptimize(step().loss);
  state.counters["tokens/s"] = benchmark::Counter(batch * (window - 1), benchmark::Counter::kIsIterationInvariantRate);
}

// Thread pairs: (LibTorch, OpenBLAS), 0 = OpenBLAS's default.
void ThreadPairs(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"torch", "blas"})->Unit(benchmark::kMillisecond);
  for (const auto& pair : {std::pair<int, int>{1, 0}, {2, 0}, {1, 1}, {2, 1}}) bench->Args({pair.first, pair.second});
}

BENCHMARK_CAPTURE(BM_TrainingStep, transformer_lm, std::string("transformer_lm"))->Apply(ThreadPairs);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sf, std::string("bet_sf"))->Apply(ThreadPairs);
BENCHMARK(BM_StudyStep)->ArgNames({"batch", "chunk"})->Args({16, -1})->Args({16, 0})->Args({16, 512})
    ->Args({16, 2032})->Args({64, -1})->Args({64, 0})->Iterations(4)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sg, std::string("bet_sg"))->Args({1, 0})->ArgNames({"torch", "blas"})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
