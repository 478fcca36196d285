// tests/models/training/test_perplexity_chunks.cpp — evaluate_perplexity runs the output layer over chunks of
// positions (models/training/token_loss.h) and never holds a batch's logits: its perplexity, token
// count and per-window sums equal the cross-entropy of the whole forward's logits (language_model_loss),
// for a language model with padding, with a head gated off, and for a translation model.
#include "models/nn/model.h"
#include "models/training/evaluation.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace aw {
namespace {

// Perplexity and per-row loss sums from the whole forward's logits, one batch.
void expect_whole_forward(AttentionModel& model, const std::vector<ModelInput>& batches, const ForwardOptions& options) {
  const auto got = evaluate_perplexity(model, batches, options, {}, true);
  c10::InferenceMode inference;
  double total = 0, count = 0;
  std::vector<torch::Tensor> rows;
  for (const auto& batch : batches) {
    const auto sums = language_model_loss(model.forward(batch, options).logits, batch);
    total += sums.total.item<double>();
    count += sums.count.item<double>();
    rows.push_back(sums.row_total.to(torch::kFloat64));
  }
  EXPECT_EQ(got.count, static_cast<int64_t>(count));
  EXPECT_NEAR(got.loss, total / count, 1e-6 * total / count);
  EXPECT_NEAR(got.metric, std::exp(total / count), 1e-6 * std::exp(total / count));
  EXPECT_TRUE(torch::allclose(got.example_sums, torch::cat(rows), 1e-5, 1e-7));
}

TEST(PerplexityChunks, PerplexityEqualsTheWholeForwardsCrossEntropy) {
  torch::manual_seed(3);
  const auto config = test::tiny_config("transformer_lm");
  auto model = create_model(config);
  model->module().eval();
  ModelInput input;
  input.input_ids = torch::randint(0, config.vocab_size, {5, 16}, torch::kLong);
  input.attention_mask = torch::ones({5, 16}, torch::kLong);
  input.attention_mask.narrow(0, 4, 1).narrow(1, 10, 6).zero_();  // a padded last window
  expect_whole_forward(*model, {input, input.map([](const torch::Tensor& t) { return t.narrow(0, 0, 2); })}, {});
  // Gates reach the forward the loss is read from: head 2 of layer 1 off.
  ForwardOptions gated;
  gated.head_gates = torch::ones({config.n_blocks, 3});
  gated.head_gates[0][1] = 0.0;
  EXPECT_GT(std::abs(evaluate_perplexity(*model, {input}, gated).metric - evaluate_perplexity(*model, {input}).metric),
            1e-4);
  expect_whole_forward(*model, {input}, gated);
}

TEST(PerplexityChunks, ATranslationModelsPerplexityEqualsItsWholeForward) {
  test::TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("chunked");
  expect_whole_forward(*loaded.model, tiny.data(loaded, 4).inputs, {});
}

}  // namespace
}  // namespace aw
