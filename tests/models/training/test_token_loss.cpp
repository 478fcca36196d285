// tests/models/training/test_token_loss.cpp — chunked next-token losses and their gradient against the whole
// output's cross entropy and autograd (models/training/token_loss)
#include "models/training/token_loss.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

using test::TempDir;
using test::tiny_batches;

// The last hidden states of a batch: (B, n, d).
torch::Tensor last_hidden(AttentionModel& model, const ModelInput& batch) {
  return model.run_layers(model.embed(batch), batch, 0, model.config().n_blocks, {}).hidden;
}

TEST(TokenLoss, ChunkedLossesEqualCrossEntropyOfTheWholeOutput) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  c10::InferenceMode inference;
  const auto batch = tiny_batches().front();
  const auto hidden = last_hidden(*loaded.model, batch);
  const auto logits = loaded.model->output(hidden, batch);                                   // (2, 16, V)
  const auto expected = torch::nn::functional::cross_entropy(
      logits.narrow(1, 0, 15).reshape({-1, logits.size(-1)}), batch.input_ids.narrow(1, 1, 15).reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone)).view({2, 15});
  for (const int64_t chunk : {1, 7, 30, 0}) {  // 30 positions predict: uneven, exact and automatic chunks
    const auto losses = next_token_losses(*loaded.model, hidden, batch, chunk);
    EXPECT_TRUE(torch::allclose(losses, expected, 1e-5, 1e-6)) << chunk << ": " << test::max_difference(losses, expected);
  }
}

TEST(TokenLoss, ChunkedGradientEqualsAutogradOfTheWeightedLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);
  const auto batch = tiny_batches().front();
  const auto hidden = last_hidden(*loaded.model, batch).detach().requires_grad_(true);
  torch::manual_seed(3);
  const auto weights = torch::rand({2, 15}, torch::kFloat64);
  const auto logits = loaded.model->output(hidden, batch).narrow(1, 0, 15);
  const auto log_probabilities = torch::log_softmax(logits, -1).gather(-1, batch.input_ids.narrow(1, 1, 15).unsqueeze(-1));
  const auto expected_loss = -(log_probabilities.squeeze(-1) * weights).sum();
  const auto expected_gradient = torch::autograd::grad({expected_loss}, {hidden}).front();
  for (const int64_t chunk : {4, 0}) {
    const auto result = next_token_loss_and_gradient(*loaded.model, hidden, weights, batch, chunk);
    EXPECT_NEAR(result.loss.item<double>(), expected_loss.item<double>(), 1e-10) << chunk;
    EXPECT_TRUE(torch::allclose(result.hidden_gradient, expected_gradient, 1e-9, 1e-12))
        << chunk << ": " << test::max_difference(result.hidden_gradient, expected_gradient);
  }
}

}  // namespace
}  // namespace aw
