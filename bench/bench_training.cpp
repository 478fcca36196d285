// bench/bench_training.cpp — one training step (forward, loss, backward, clipping, Adam) at the
// sample models' size: transformer_lm is the baseline; bet_sf adds the bird-eye reweighting, bet_sg
// the pointer loss over every layer's attention. Batch 16 × window 64, vocabulary 7000. Then the study
// LM's step (6 layers, d 256, window 128, WikiText-2's 33,278 words) at batches 16 and 64 against the
// step it replaced, which held the batch's whole [B, n, V] logits and their gradient. Then the optimiser's
// part of a step (clipping and Adam) over the study LM's 100 parameter tensors, LibTorch's loops against
// the multi-tensor ones, with the ATen operations each dispatches: on a GPU, launches a lane waits on.
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/training/evaluation.h"
#include "models/training/multi_tensor_optim.h"
#include "models/training/trainer.h"

#include <ATen/record_function.h>
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <atomic>
#include <memory>
#include <utility>

namespace {

constexpr int64_t kBatch = 16, kWindow = 64, kVocabulary = 7000;

void BM_TrainingStep(benchmark::State& state, const std::string& arch) {
  aw::configure_allocator();
  // LibTorch's threads, which also run its BLAS's products.
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

// ATen operations the code itself calls on this thread while `counting` is on — the outermost ones, not
// those an operation calls inside (on the CPU a multi-tensor operation loops over per-tensor ones; on a
// GPU it is one kernel over them all). On a GPU each is a launch or more, views aside.
std::atomic<int64_t> dispatched{0};
thread_local bool counting = false;
thread_local int depth = 0;

void count_dispatches() {
  static const bool added = [] {
    at::addGlobalCallback(at::RecordFunctionCallback(
                              [](const at::RecordFunction&) -> std::unique_ptr<at::ObserverContext> {
                                if (depth++ == 0 && counting) ++dispatched;
                                return nullptr;
                              },
                              [](const at::RecordFunction&, at::ObserverContext*) { --depth; })
                              .scopes({at::RecordScope::FUNCTION}));
    return true;
  }();
  (void)added;
}

// The ATen operations one call of `step` calls.
template <typename Step>
double operations_of(Step& step) {
  count_dispatches();
  dispatched = 0;
  counting = true;
  step();
  counting = false;
  return static_cast<double>(dispatched.load());
}

// The training step before the output layer ran in chunks: the whole forward's logits, their cross-entropy,
// one backward, LibTorch's clipping and Adam. The baseline of BM_StudyStep.
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

constexpr int64_t kStudyWindow = 128, kStudyVocabulary = 33278;

// The study LM of scripts/study/train-models.sh's wiki6_* runs: 6 layers × 8 heads, d 256, WikiText-2's
// words, randomly initialised (seeded).
std::shared_ptr<aw::AttentionModel> study_model() {
  nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", kStudyVocabulary}, {"n_layers", 6},
                         {"n_heads", 8}, {"d_model", 256}, {"d_ff", 1024}, {"max_positions", kStudyWindow},
                         {"dropout", 0.1}};
  torch::manual_seed(1);
  return aw::create_model(aw::parse_model_config(json, "bench config"));
}

// One thread, as a CPU lane of scripts/study/train-models.sh runs. Args: batch, and positions per chunk of the
// output layer: −1 the whole logits (the old step), 0 the default (token_loss.h), or that many.
void BM_StudyStep(benchmark::State& state) {
  aw::configure_allocator();
  torch::set_num_threads(1);
  const int64_t batch = state.range(0), window = kStudyWindow, vocabulary = kStudyVocabulary;
  auto model = study_model();
  model->module().train();
  const auto adam = torch::optim::AdamOptions(1e-3).betas({0.9, 0.98});
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (state.range(1) < 0) optimizer = std::make_unique<torch::optim::Adam>(model->module().parameters(), adam);
  else optimizer = std::make_unique<aw::MultiTensorAdam>(model->module().parameters(), adam);
  aw::ModelInput input;
  input.input_ids = torch::randint(0, vocabulary, {batch, window}, torch::kLong);
  input.attention_mask = torch::ones({batch, window}, torch::kLong);
  aw::TrainSettings settings;
  settings.clip = 1.0;
  auto step = [&] {
    if (state.range(1) < 0) return whole_logits_step(*model, *optimizer, input);
    optimizer->zero_grad();  // training_step's own sequence, with the chunk size given
    auto losses = aw::backward_training_losses(*model, input, torch::Tensor(), settings, state.range(1));
    aw::clip_gradient_norm(model->module().parameters(), settings.clip);
    optimizer->step();
    return losses;
  };
  step();  // warm-up
  state.counters["operations"] = operations_of(step);
  for (auto _ : state) benchmark::DoNotOptimize(step().loss);
  state.counters["tokens/s"] = benchmark::Counter(batch * (window - 1), benchmark::Counter::kIsIterationInvariantRate);
}

// Clipping and Adam over the study LM's parameters with fixed gradients. Arg: LibTorch's (0) or multi-tensor (1).
void BM_OptimizerStep(benchmark::State& state) {
  aw::configure_allocator();
  torch::set_num_threads(1);
  auto model = study_model();
  auto parameters = model->module().parameters();
  for (auto& parameter : parameters) parameter.mutable_grad() = torch::randn_like(parameter) * 1e-3;
  const auto options = torch::optim::AdamOptions(1e-3).betas({0.9, 0.98}).eps(1e-9);
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (state.range(0)) optimizer = std::make_unique<aw::MultiTensorAdam>(parameters, options);
  else optimizer = std::make_unique<torch::optim::Adam>(parameters, options);
  auto step = [&] {
    if (state.range(0)) aw::clip_gradient_norm(parameters, 1.0);
    else torch::nn::utils::clip_grad_norm_(parameters, 1.0);
    optimizer->step();
  };
  step();  // the moments' first allocation
  state.counters["operations"] = operations_of(step);
  for (auto _ : state) step();
  state.counters["tensors"] = static_cast<double>(parameters.size());
}

// LibTorch's threads: one (a study lane) and two (the machine).
void ThreadCounts(benchmark::internal::Benchmark* bench) {
  bench->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(BM_TrainingStep, transformer_lm, std::string("transformer_lm"))->Apply(ThreadCounts);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sf, std::string("bet_sf"))->Apply(ThreadCounts);
BENCHMARK(BM_StudyStep)->ArgNames({"batch", "chunk"})->Args({16, -1})->Args({16, 0})->Args({16, 512})
    ->Args({16, 2032})->Args({64, -1})->Args({64, 0})->Iterations(4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimizerStep)->ArgName("multi")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainingStep, bet_sg, std::string("bet_sg"))->ArgName("threads")->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
