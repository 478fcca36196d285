// tests/models/nn/test_transformer.cpp — the shared transformer (models/nn/transformer.h): invariants of
// every family (rows sum to 1, causal zeros, head gates, BET(SF)'s diagonal, the diagonal intervention),
// the other configurations and bad input, and the encoder classifier's mean pooling (layer 0's float64
// re-computations: test_layer0_reference.cpp).
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/forward_hooks.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::capture_all;
using test::max_difference;
using test::random_model;
using test::sample_input;
using test::TempDir;
using test::tiny_config;
using test::two_documents;

ModelConfig tiny_bert_config() {
  nlohmann::json json = {{"model_type", "bert"},          {"vocab_size", 20},         {"hidden_size", 12},
                         {"num_hidden_layers", 2},        {"num_attention_heads", 3}, {"intermediate_size", 24},
                         {"max_position_embeddings", 16}, {"hidden_dropout_prob", 0.0}};
  return parse_model_config(json, "tiny bert");
}

ModelConfig tiny_gpt2_config() {
  nlohmann::json json = {{"model_type", "gpt2"}, {"vocab_size", 20}, {"n_embd", 12}, {"n_layer", 2},
                         {"n_head", 3},          {"n_positions", 16}, {"resid_pdrop", 0.0}};
  return parse_model_config(json, "tiny gpt2");
}

class EveryFamily : public ::testing::TestWithParam<std::string> {
 protected:
  ModelConfig config() const {
    if (GetParam() == "bert") return tiny_bert_config();
    if (GetParam() == "gpt2") return tiny_gpt2_config();
    return tiny_config(GetParam());
  }
};

TEST_P(EveryFamily, AttentionRowsSumToOne) {
  auto model = random_model(config());
  torch::manual_seed(1);
  const auto result = model->forward(sample_input(), capture_all());
  ASSERT_EQ(result.attention.size(), 2u);
  for (const auto& attention : result.attention) {
    EXPECT_EQ(attention.sizes(), (std::vector<int64_t>{2, 3, 9, 9}));
    const auto sums = attention.sum(-1);
    EXPECT_TRUE(torch::allclose(sums, torch::ones_like(sums), 1e-6, 1e-6)) << max_difference(sums, torch::ones_like(sums));
  }
}

TEST_P(EveryFamily, CausalModelsPutZerosAboveTheDiagonal) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(2);
  const auto result = model->forward(sample_input(), capture_all());
  const auto above = torch::ones({9, 9}, torch::kBool).triu(1);
  for (const auto& attention : result.attention) {
    const auto upper = attention.masked_select(above);
    if (c.causal) EXPECT_EQ(upper.abs().max().item<double>(), 0.0);
    else EXPECT_GT(upper.abs().max().item<double>(), 0.0);  // BERT sees both directions
  }
}

// diag-sweep's ×1 is the sweep's formula at 1: on a model without a diagonal-free mask it changes
// nothing, bit for bit; on BET(SF) it lifts the mask, as every factor does, so it equals the same
// weights without the mask and differs from the model as trained (the sweep's baseline).
TEST_P(EveryFamily, DiagonalFactorOneIsTheForwardWithoutADiagonalFreeMask) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(3);
  const auto input = sample_input();
  const auto plain = model->forward(input, capture_all());
  auto options = capture_all();
  options.diagonal = DiagonalIntervention::scale(1.0);
  const auto scaled = model->forward(input, options);
  auto expected = plain;
  if (c.bird_eye && c.diag_free_mask) {
    auto unmasked_config = c;
    unmasked_config.diag_free_mask = false;
    auto unmasked = random_model(unmasked_config, 4);  // other draws, then the masked model's weights
    test::copy_weights(*model, *unmasked);
    expected = unmasked->forward(input, capture_all());
    EXPECT_GT((plain.hidden - scaled.hidden).abs().max().item<double>(), 1e-3);  // not the model as trained
  }
  EXPECT_TRUE(torch::equal(expected.hidden, scaled.hidden)) << max_difference(expected.hidden, scaled.hidden);
  for (size_t layer = 0; layer < expected.attention.size(); ++layer)
    EXPECT_TRUE(torch::equal(expected.attention[layer], scaled.attention[layer]))
        << "layer " << layer << ": " << max_difference(expected.attention[layer], scaled.attention[layer]);
}

TEST_P(EveryFamily, DiagonalMaskZeroesTheDiagonalExceptRowZero) {
  auto model = random_model(config());
  torch::manual_seed(4);
  auto options = capture_all();
  options.diagonal = DiagonalIntervention::mask();
  const auto result = model->forward(sample_input(), options);
  for (const auto& attention : result.attention) {
    const auto diagonal = attention.diagonal(0, -2, -1);                                   // (B, H, n)
    EXPECT_EQ(diagonal.narrow(-1, 1, 8).abs().max().item<double>(), 0.0);
    EXPECT_GT(diagonal.select(-1, 0).min().item<double>(), 0.0);
  }
}

TEST_P(EveryFamily, GateOfZeroRemovesExactlyThatHeadsContribution) {
  // attn(x) with head h gated off must equal attn(x) minus head h's term W_o[:, h] (A_h V_h).
  const auto c = config();
  auto model = random_model(c);
  auto block = model->layers[0]->as<TransformerBlock>();
  auto attention_module = block->attn;
  torch::manual_seed(5);
  const auto x = torch::randn({2, 9, c.d_model});
  auto context = attention_context(9, 9, c.causal, {}, DiagonalIntervention::none(), c.bird_eye && c.diag_free_mask,
                                   torch::TensorOptions(torch::kFloat32));

  // The capture and the gates as a forward builds them (forward_hooks.h): a reader at pattern, the
  // gates the first writer at z.
  auto capture = capture_all();
  AttentionSink sink(capture);
  const auto capturing = forward_hooks({}, Hooks(), sink, 0, 1);
  context.hooks = LayerHooks{&capturing, 0};
  const auto all_on = attention_module->forward(x, context).output;
  sink.end_layer(0);
  const auto probabilities = sink.release().at(0);
  const int64_t head = 1, dh = c.d_head;
  const auto gates = torch::tensor({1.0f, 0.0f, 1.0f}).view({1, 3});
  ForwardOptions nothing;
  AttentionSink no_sink(nothing);
  const auto gating = forward_hooks({gates}, Hooks(), no_sink, 0, 1);
  context.hooks = LayerHooks{&gating, 0};
  const auto gated = attention_module->forward(x, context).output;

  const auto values = attention_module->v(x).view({2, 9, 3, dh}).select(2, head);                   // (B, n, dh)
  const auto head_context = torch::matmul(probabilities.select(1, head), values);                     // (B, n, dh)
  const auto head_term = torch::matmul(head_context, attention_module->o->weight.narrow(1, head * dh, dh).t());
  const auto expected = all_on - head_term;
  EXPECT_TRUE(torch::allclose(gated, expected, 1e-5, 1e-5)) << max_difference(gated, expected);
  EXPECT_GT((gated - all_on).abs().max().item<double>(), 1e-3);  // the head did contribute
}

TEST_P(EveryFamily, BatchedGatesEqualOneForwardPerGateSetting) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(6);
  auto input = sample_input(1);
  auto gates = torch::ones({2, c.n_blocks, c.max_heads()});
  gates[0][1][2] = 0.0;
  gates[1][0][0] = 0.0;
  ModelInput doubled;
  doubled.input_ids = input.input_ids.repeat({2, 1});
  ForwardOptions batched;
  batched.head_gates = gates;
  const auto together = model->forward(doubled, batched);
  for (int64_t setting = 0; setting < 2; ++setting) {
    ForwardOptions single;
    single.head_gates = gates[setting];
    const auto alone = model->forward(input, single);
    EXPECT_TRUE(torch::allclose(together.hidden[setting], alone.hidden[0], 1e-5, 1e-5))
        << max_difference(together.hidden[setting], alone.hidden[0]);
  }
}

TEST_P(EveryFamily, GateRowsSplittingTheBatchEqualRepeatedRows) {
  // k·B gate rows on B embedded rows: the rows part ways at layer 0's gates, and every layer after
  // must see them (and their padding) as if they had been repeated k times from the start.
  const auto c = config();
  auto model = random_model(c);
  ASSERT_TRUE(model->splits_rows_at_gates());
  torch::manual_seed(11);
  auto input = sample_input(2, 7);
  input.attention_mask = torch::ones({2, 7}, torch::kLong);
  input.attention_mask[1].narrow(0, 4, 3).fill_(0);
  auto gates = torch::ones({3 * 2, c.n_blocks, c.max_heads()});                  // 3 settings × 2 rows
  gates[0][0][0] = 0.0;
  gates[3][1][2] = 0.5;
  gates[5][0][1] = 0.0;
  gates[5][1][0] = 0.0;
  ForwardOptions options;
  options.head_gates = gates;
  const auto split = model->run_layers(model->embed(input), input, 0, c.n_blocks, options).hidden;
  ModelInput repeated;
  repeated.input_ids = input.input_ids.repeat({3, 1});
  repeated.attention_mask = input.attention_mask.repeat({3, 1});
  const auto expected = model->run_layers(model->embed(repeated), repeated, 0, c.n_blocks, options).hidden;
  ASSERT_EQ(split.sizes(), expected.sizes());
  EXPECT_TRUE(torch::allclose(split, expected, 1e-5, 1e-5)) << max_difference(split, expected);
}

TEST_P(EveryFamily, GatesAreDifferentiable) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(7);
  auto gates = torch::ones({c.n_blocks, c.max_heads()}, torch::requires_grad());
  ForwardOptions options;
  options.head_gates = gates;
  model->forward(sample_input(), options).hidden.pow(2).sum().backward();
  ASSERT_TRUE(gates.grad().defined());
  EXPECT_EQ(gates.grad().sizes(), gates.sizes());
  EXPECT_TRUE(torch::isfinite(gates.grad()).all().item<bool>());
  EXPECT_GT(gates.grad().abs().min().item<double>(), 0.0);
}

TEST_P(EveryFamily, StagedForwardEqualsForward) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(8);
  const auto input = sample_input();
  const auto whole = model->forward(input, {});
  auto hidden = model->run_layers(model->embed(input), input, 0, 1, {}).hidden;
  hidden = model->run_layers(hidden, input, 1, c.n_blocks, {}).hidden;
  EXPECT_TRUE(torch::equal(hidden, whole.hidden));
  if (whole.logits.defined()) EXPECT_TRUE(torch::equal(model->output(hidden, input), whole.logits));
}

TEST_P(EveryFamily, ObserverSeesEveryLayerInStatsMode) {
  auto model = random_model(config());
  std::vector<int64_t> seen;
  ForwardOptions options;
  options.capture = CaptureMode::Stats;
  options.observer = [&](int64_t layer, const torch::Tensor& probabilities) {
    EXPECT_EQ(probabilities.dim(), 4);
    seen.push_back(layer);
  };
  const auto result = model->forward(sample_input(), options);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(result.attention.empty());  // Stats keeps nothing
}

TEST_P(EveryFamily, RunLayersReturnsWhatTheObserverSaw) {
  const auto c = config();
  auto model = random_model(c);
  torch::manual_seed(13);
  const auto input = sample_input();
  std::vector<torch::Tensor> observed;
  auto options = capture_all();
  options.observer = [&](int64_t, const torch::Tensor& probabilities) { observed.push_back(probabilities); };
  const auto run = model->run_layers(model->embed(input), input, 0, c.n_blocks, options);
  const auto whole = model->forward(input, capture_all());
  ASSERT_EQ(run.attention.size(), static_cast<size_t>(c.n_blocks));
  ASSERT_EQ(observed.size(), run.attention.size());
  for (int64_t layer = 0; layer < c.n_blocks; ++layer) {
    EXPECT_TRUE(observed[layer].is_same(run.attention[layer])) << "layer " << layer;  // the one tensor, not a copy
    EXPECT_TRUE(torch::equal(run.attention[layer], whole.attention[layer])) << "layer " << layer;
  }
  EXPECT_TRUE(torch::equal(run.hidden, whole.hidden));
  EXPECT_TRUE(model->run_layers(model->embed(input), input, 0, c.n_blocks, {}).attention.empty());
}

INSTANTIATE_TEST_SUITE_P(Families, EveryFamily,
                         ::testing::Values("transformer_lm", "bet_sf", "bet_sg", "gpt2", "bert"));

// --- other configurations and bad input -----------------------------------------------------------

TEST(TransformerVariants, PostNormSinusoidalUntiedReluRunsAndNormalises) {
  auto json = nlohmann::json{{"model_type", "transformer_lm"}, {"vocab_size", 20}, {"n_layers", 2}, {"n_heads", 3},
                             {"d_model", 12}, {"max_positions", 16}, {"norm", "post"}, {"positions", "sinusoidal"},
                             {"tie_embeddings", false}, {"activation", "relu"}, {"dropout", 0.0}};
  auto model = random_model(parse_model_config(json, "config"));
  EXPECT_TRUE(model->lm_head);
  EXPECT_FALSE(model->ln_f);
  EXPECT_FALSE(model->pos_emb);
  torch::manual_seed(14);
  const auto result = model->forward(sample_input(), capture_all());
  EXPECT_EQ(result.logits.sizes(), (std::vector<int64_t>{2, 9, 20}));
  // Post-LN: the last layer's output is LayerNorm-ed (mean 0, variance 1 before the affine 1/0).
  EXPECT_LT(result.hidden.mean(-1).abs().max().item<double>(), 1e-5);
}

TEST(TransformerVariants, SinusoidalTableFollowsVaswani) {
  auto json = nlohmann::json{{"model_type", "transformer_lm"}, {"vocab_size", 20}, {"n_layers", 1}, {"n_heads", 3},
                             {"d_model", 12}, {"max_positions", 16}, {"positions", "sinusoidal"}};
  auto model = make_transformer(parse_model_config(json, "config"));
  const auto table = model->named_buffers()["sinusoid"];
  for (int64_t position : {0, 5, 15})
    for (int64_t i : {0, 1, 4}) {
      const double angle = position / std::pow(10000.0, 2.0 * i / 12.0);
      EXPECT_NEAR(table[position][2 * i].item<double>(), std::sin(angle), 1e-6);
      EXPECT_NEAR(table[position][2 * i + 1].item<double>(), std::cos(angle), 1e-6);
    }
}

TEST(TransformerInput, SequenceLongerThanPositionsIsAClearError) {
  auto model = random_model(tiny_config("transformer_lm"));
  try {
    model->forward(sample_input(1, 17), {});
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "sequence length 17 exceeds the model's 16 positions");
  }
}

TEST(TransformerInput, GatesOfTheWrongShapeAreAClearError) {
  auto model = random_model(tiny_config("transformer_lm"));
  ForwardOptions options;
  options.head_gates = torch::ones({2, 4});
  try {
    model->forward(sample_input(), options);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "head gates have shape [2, 4]; expected [2, 3] or [k·2, 2, 3]");
  }
}

TEST(TransformerInput, PaddedKeysGetNoAttention) {
  auto model = random_model(tiny_bert_config());
  auto input = sample_input();
  input.attention_mask = torch::ones({2, 9}, torch::kLong);
  input.attention_mask[1].narrow(0, 6, 3).fill_(0);
  const auto result = model->forward(input, capture_all());
  for (const auto& attention : result.attention)
    EXPECT_EQ(attention[1].narrow(-1, 6, 3).abs().max().item<double>(), 0.0);
}

// --- A block's typed output ---------------------------------------------------------------------

// A transformer block hands its attention to a reader at pattern, tile by tile: the probabilities
// Full capture keeps; the hidden state is the same whether a reader is there or not.
TEST(TransformerBlock, HandsItsProbabilitiesToAPatternReaderOnlyWhenOneIsThere) {
  auto model = random_model(tiny_config("transformer_lm"));
  torch::manual_seed(14);
  const auto input = sample_input(2, 9);
  const int64_t length = 9;
  // What a causal model without padding or diagonal treatment builds; explicit, so that a block not
  // asked for its probabilities does the same arithmetic (LibTorch 2.x would take the fused kernel).
  auto context = attention_context(length, length, true, {}, DiagonalIntervention::none(), false,
                                   torch::TensorOptions(torch::kFloat32));
  context.fused = false;
  ForwardOptions explicit_path;
  explicit_path.explicit_attention = true;
  const auto embedded = model->embed(input);
  auto block = model->layers[0]->as<TransformerBlock>();
  torch::Tensor probabilities;
  int calls = 0;
  Hooks reader;
  reader.add(HookPoint::Pattern, 0, [&](const HookSite& site, const torch::Tensor& tile) {
    EXPECT_EQ(site.first_position, 0);
    probabilities = tile;
    ++calls;
    return torch::Tensor();
  });
  const auto not_asked = block->forward(embedded, context);
  context.hooks = LayerHooks{&reader, 0};
  const auto asked = block->forward(embedded, context);
  const auto captured = model->forward(input, capture_all());

  EXPECT_EQ(calls, 1);  // the whole matrix fits the budget: one tile
  EXPECT_EQ(probabilities.sizes(), (std::vector<int64_t>{2, 3, length, length}));
  EXPECT_TRUE(torch::equal(probabilities, captured.attention[0])) << max_difference(probabilities, captured.attention[0]);
  EXPECT_TRUE(torch::equal(asked.hidden, not_asked.hidden));
  EXPECT_TRUE(torch::equal(asked.hidden, model->run_layers(embedded, input, 0, 1, explicit_path).hidden));
}

TEST(Lama, EncoderClassifierRoundTripAndMeanPooling) {
  nlohmann::json json = {{"model_type", "encoder_classifier"}, {"vocab_size", 20}, {"n_layers", 1}, {"n_heads", 2},
                         {"d_model", 8}, {"max_positions", 16}, {"dropout", 0.0}, {"labels", {"neg", "pos"}}};
  const auto config = parse_model_config(json, "encoder config");
  EXPECT_FALSE(config.causal);
  EXPECT_TRUE(config.is_classifier());
  TempDir dir;
  auto original = create_model(config);
  original->module().eval();
  save_native_checkpoint(dir.path(), *original, test::tiny_vocabulary(20));
  const auto loaded = load_checkpoint(dir.path());
  torch::NoGradGuard no_grad;
  const auto input = two_documents();
  const auto result = loaded.model->forward(input);
  EXPECT_EQ(result.logits.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(torch::equal(result.logits, original->forward(input).logits));
  // Padding does not reach the pooled mean.
  ModelInput alone;
  alone.input_ids = torch::tensor({6, 8, 3, 12, 2}, torch::kLong).view({1, 5});
  EXPECT_TRUE(torch::allclose(result.logits[1], loaded.model->forward(alone).logits[0], 1e-5, 1e-6));
}

}  // namespace
}  // namespace aw
