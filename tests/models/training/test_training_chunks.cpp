// tests/models/training/test_training_chunks.cpp — a training step runs the output layer and its
// label-smoothed loss over chunks of positions (backward_training_losses, token_loss.h): its loss and
// every parameter's gradient equal autograd through the whole forward's logits and torch's
// cross_entropy, for a language model with padding, for BET(SG) with its pointer loss, and for a
// translation model; in float64 so the comparison is tight.
#include "models/nn/model.h"
#include "models/text/syntax_hints.h"
#include "models/training/trainer.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace aw {
namespace {

std::vector<torch::Tensor> gradients_of(AttentionModel& model) {
  std::vector<torch::Tensor> gradients;
  for (auto& parameter : model.module().parameters())
    gradients.push_back(parameter.grad().defined() ? parameter.grad().clone() : torch::zeros_like(parameter));
  return gradients;
}

void zero_gradients(AttentionModel& model) {
  for (auto& parameter : model.module().parameters())
    if (parameter.grad().defined()) parameter.mutable_grad() = torch::Tensor();
}

// The reference: the whole forward's logits, torch's smoothed cross-entropy in the model's float64 over
// the kept tokens, the pointer loss on the captured attention, one backward.
double whole_forward_backward(AttentionModel& model, const ModelInput& input, const torch::Tensor& hints,
                              const TrainSettings& settings) {
  ForwardOptions options;
  if (hints.defined()) options.capture = CaptureMode::Full;
  const auto result = model.forward(input, options);
  const auto& ids = input.predicted_ids();
  const int64_t length = ids.size(1);
  const auto logits = result.logits.narrow(1, 0, length - 1);
  namespace F = torch::nn::functional;
  const auto per_token = F::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), ids.narrow(1, 1, length - 1).reshape({-1}),
      F::CrossEntropyFuncOptions().reduction(torch::kNone).label_smoothing(settings.label_smoothing));
  const auto keep = input.predicted_mask().narrow(1, 1, length - 1).reshape({-1}).to(per_token.dtype());
  auto loss = (per_token * keep).sum() / keep.sum();
  if (hints.defined()) loss = loss + settings.pointer_weight * pointer_loss(result.attention, hints);
  loss.backward();
  return loss.item<double>();
}

// backward_training_losses at several chunk sizes against the reference, loss and every gradient.
void expect_equal_to_whole_forward(AttentionModel& model, const ModelInput& input, const torch::Tensor& hints,
                                   const TrainSettings& settings) {
  zero_gradients(model);
  const double expected_loss = whole_forward_backward(model, input, hints, settings);
  const auto expected = gradients_of(model);
  for (const int64_t chunk : {1, 7, 0}) {  // one position, an uneven split, the default (one chunk here)
    zero_gradients(model);
    const auto losses = backward_training_losses(model, input, hints, settings, chunk);
    EXPECT_NEAR(losses.loss.item<double>(), expected_loss, 1e-10) << "chunk " << chunk;
    const auto got = gradients_of(model);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-8, 1e-11))
          << "chunk " << chunk << ", parameter " << i << ": " << test::max_difference(got[i], expected[i]);
  }
}

ModelInput padded_windows(const ModelConfig& config) {
  torch::manual_seed(11);
  ModelInput input;
  input.input_ids = torch::randint(0, config.vocab_size, {3, 16}, torch::kLong);
  input.attention_mask = torch::ones({3, 16}, torch::kLong);
  input.attention_mask.narrow(0, 2, 1).narrow(1, 9, 7).zero_();  // a padded last window
  return input;
}

// A randomly initialised (seeded) float64 model of `config`.
auto float64_model(const ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  auto model = create_model(config);
  model->module().to(torch::kFloat64);
  return model;
}

TEST(TrainingChunks, ALanguageModelsSmoothedLossAndGradientsEqualTheWholeForward) {
  const auto config = test::tiny_config("bet_sf");
  auto model = float64_model(config, 3);
  const auto input = padded_windows(config);
  TrainSettings settings;
  for (const double epsilon : {0.0, 0.1, 0.6}) {
    settings.label_smoothing = epsilon;
    expect_equal_to_whole_forward(*model, input, torch::Tensor(), settings);
  }
  // The smoothing reaches the loss: ε changes it.
  settings.label_smoothing = 0.0;
  const double plain = backward_training_losses(*model, input, torch::Tensor(), settings).loss.item<double>();
  settings.label_smoothing = 0.1;
  const double smoothed = backward_training_losses(*model, input, torch::Tensor(), settings).loss.item<double>();
  EXPECT_GT(std::abs(smoothed - plain), 1e-4);
}

TEST(TrainingChunks, BetSgsPointerLossIsBackPropagatedWithTheTokenLoss) {
  const auto config = test::tiny_config("bet_sg");
  auto model = float64_model(config, 4);
  const auto input = padded_windows(config);
  // A hint per position at or before it; −1 (no hint) on the padding.
  const auto positions = torch::arange(16, torch::kFloat64);
  auto hints = (torch::rand({3, 16}, torch::kFloat64) * (positions + 1)).floor().to(torch::kLong);
  hints.narrow(0, 2, 1).narrow(1, 9, 7).fill_(-1);
  TrainSettings settings;
  settings.pointer_weight = 0.3;
  settings.label_smoothing = 0.1;
  expect_equal_to_whole_forward(*model, input, hints, settings);
  const auto losses = backward_training_losses(*model, input, hints, settings);
  ASSERT_TRUE(losses.pointer.defined());
  EXPECT_GT(losses.pointer.item<double>(), 0.0);
}

TEST(TrainingChunks, ATranslationModelsSmoothedLossAndGradientsEqualTheWholeForward) {
  test::TinyTranslation tiny;
  auto loaded = tiny.checkpoint("chunked");
  loaded.model->module().to(torch::kFloat64);
  TrainSettings settings;
  settings.label_smoothing = 0.1;
  expect_equal_to_whole_forward(*loaded.model, tiny.data(loaded, 4).inputs.front(), torch::Tensor(), settings);
}

}  // namespace
}  // namespace aw
