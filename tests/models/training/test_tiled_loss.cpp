// tests/models/training/test_tiled_loss.cpp — evaluate_perplexity with a batch whose logits exceed the
// memory budget (models/training/evaluation.h, loss_block_tokens): the output layer run a block of rows,
// or of positions within one row, at a time gives the perplexity, token count and per-window sums of the
// whole forward, for a language model (with a head gated off too) and a translation model.
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

// The budget, in bytes, that holds `tokens` predicted tokens' logits of `config` in one block.
int64_t budget_for(const ModelConfig& config, int64_t tokens) {
  const int64_t vocabulary = config.is_translation() && config.translation.target_vocab_size > 0 ? config.translation.target_vocab_size
                                                                                      : config.vocab_size;
  return tokens * 3 * vocabulary * static_cast<int64_t>(sizeof(float));
}

void expect_same(const EvaluationResult& tiled, const EvaluationResult& whole) {
  EXPECT_EQ(tiled.count, whole.count);
  EXPECT_NEAR(tiled.metric, whole.metric, 1e-6 * whole.metric);
  EXPECT_NEAR(tiled.loss, whole.loss, 1e-6 * whole.loss);
  ASSERT_TRUE(tiled.example_sums.defined() && whole.example_sums.defined());
  EXPECT_TRUE(torch::allclose(tiled.example_sums, whole.example_sums, 1e-6, 1e-9));
  EXPECT_TRUE(torch::equal(tiled.example_counts, whole.example_counts));
}

TEST(TiledLoss, BlocksOfRowsAndOfPositionsEqualTheWholeForward) {
  torch::manual_seed(3);
  auto config = test::tiny_config("transformer_lm");  // 16 positions
  // A vocabulary large enough that a budget for a few tokens' logits still holds a row of attention.
  config.vocab_size = 2000;
  auto model = create_model(config);
  model->module().eval();
  ModelInput input;
  input.input_ids = torch::randint(0, config.vocab_size, {5, 16}, torch::kLong);
  input.attention_mask = torch::ones({5, 16}, torch::kLong);
  input.attention_mask.narrow(0, 4, 1).narrow(1, 10, 6).zero_();  // a padded last window
  const std::vector<ModelInput> batches = {input};
  const auto whole = evaluate_perplexity(*model, batches, {}, {}, true);
  ASSERT_GE(loss_block_tokens(config), 5 * 16);  // the default budget holds this batch whole
  ForwardOptions options;
  for (const int64_t tokens : {32, 7}) {  // two rows of 15 predicted tokens a block; 7 positions of one row
    options.memory_budget = budget_for(config, tokens);
    ASSERT_EQ(loss_block_tokens(config, options.memory_budget), tokens);
    expect_same(evaluate_perplexity(*model, batches, options, {}, true), whole);
  }
  // Gates reach the blocked forward: head 2 of layer 1 off changes the metric alike in both.
  options.head_gates = torch::ones({config.n_blocks, 3});
  options.head_gates[0][1] = 0.0;
  ForwardOptions gated;
  gated.head_gates = options.head_gates;
  const auto gated_whole = evaluate_perplexity(*model, batches, gated, {}, true);
  EXPECT_GT(std::abs(gated_whole.metric - whole.metric), 1e-4);
  expect_same(evaluate_perplexity(*model, batches, options, {}, true), gated_whole);
}

TEST(TiledLoss, ATranslationModelsBlocksEqualItsWholeForward) {
  test::TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("blocked");
  const auto batches = tiny.data(loaded, 4).inputs;
  const auto whole = evaluate_perplexity(*loaded.model, batches, {}, {}, true);
  ForwardOptions options;
  options.memory_budget = budget_for(loaded.config, 5);
  ASSERT_LT(loss_block_tokens(loaded.config, options.memory_budget), batches.front().decoder_input_ids.numel());
  expect_same(evaluate_perplexity(*loaded.model, batches, options, {}, true), whole);
}

}  // namespace
}  // namespace aw
