// tests/models/nn/test_layer0_reference.cpp — BET(SF)'s diagonal (masked but for row 0, or attended to
// without the mask) and float64 re-computations of layer 0's attention, straight from the parameters, for
// the vanilla and the bird-eye transformer, the diagonal scaled as diag-sweep scales it
// (models/nn/transformer.h).
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <memory>

namespace aw {
namespace {

using test::capture_all;
using test::max_difference;
using test::random_model;
using test::sample_input;
using test::tiny_config;

// --- BET(SF) ------------------------------------------------------------------------------------

TEST(BirdEye, DiagonalIsZeroExceptRowZero) {
  auto model = random_model(tiny_config("bet_sf"));
  torch::manual_seed(9);
  const auto result = model->forward(sample_input(), capture_all());
  for (const auto& attention : result.attention) {
    const auto diagonal = attention.diagonal(0, -2, -1);
    EXPECT_EQ(diagonal.narrow(-1, 1, 8).abs().max().item<double>(), 0.0);
    EXPECT_FLOAT_EQ(diagonal.select(-1, 0).min().item<float>(), 1.0f);  // row 0 attends only to itself
  }
}

TEST(BirdEye, WithoutDiagFreeMaskTheDiagonalIsUsed) {
  auto json = nlohmann::json{{"model_type", "bet_sf"}, {"vocab_size", 20}, {"n_layers", 2}, {"n_heads", 3},
                             {"d_model", 12}, {"max_positions", 16}, {"dropout", 0.0}, {"diag_free_mask", false}};
  auto model = random_model(parse_model_config(json, "config"));
  torch::manual_seed(10);
  const auto result = model->forward(sample_input(), capture_all());
  EXPECT_GT(result.attention[0].diagonal(0, -2, -1).narrow(-1, 1, 8).min().item<double>(), 0.0);
}

// float64 re-computation of layer 0's attention, straight from the parameters: as trained (`swept`
// false, the factor 1), or with the diagonal scaled by a diag-sweep factor.
torch::Tensor reference_layer0_attention(TransformerImpl& model, const torch::Tensor& ids, double diagonal_factor,
                                         bool swept) {
  const auto& c = model.config();
  auto d = [](const torch::Tensor& t) { return t.detach().to(torch::kFloat64); };
  auto block = model.layers[0]->as<TransformerBlock>();
  const int64_t n = ids.size(1), heads = c.n_heads, dh = c.d_head;
  auto x = d(model.tok_emb->weight).index_select(0, ids.reshape({-1})).view({ids.size(0), n, c.d_model}) +
           d(model.pos_emb->weight).narrow(0, 0, n);
  auto mean = x.mean(-1, true);
  auto variance = (x - mean).pow(2).mean(-1, true);
  auto normed = (x - mean) / torch::sqrt(variance + c.layer_norm_eps) * d(block->ln_1->weight) + d(block->ln_1->bias);
  auto project = [&](Dense& linear) {
    return (torch::matmul(normed, d(linear->weight).t()) + d(linear->bias)).view({ids.size(0), n, heads, dh}).transpose(1, 2);
  };
  auto q = project(block->attn->q), k = project(block->attn->k), v = project(block->attn->v);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(dh));
  auto eye = torch::eye(n, torch::kFloat64);
  scores = scores * (1 - eye) + scores * eye * diagonal_factor;
  const auto causal = torch::ones({n, n}, torch::kBool).triu(1);
  scores = scores.masked_fill(causal, -INFINITY);
  if (!c.bird_eye) return torch::softmax(scores, -1);
  auto context = torch::matmul(torch::softmax(scores, -1), v);                        // (B, H, n, dh)
  auto w = d(block->attn->bird_eye);                                                  // (H, 2dh)
  auto r = torch::sigmoid((torch::cat({context, k}, -1) * w.view({1, heads, 1, 2 * dh})).sum(-1));  // (B, H, n)
  scores = scores * r.unsqueeze(-2);
  // Every swept factor, 1 included, lifts BET(SF)'s diagonal-free mask: the scaled diagonal is attended to.
  if (c.diag_free_mask && !swept) scores = scores.masked_fill(torch::eye(n, torch::kBool).index_put_({0, 0}, false), -INFINITY);
  return torch::softmax(scores, -1);
}

// A random BET(SF) whose reweighting weights are drawn too (they start at zero, R_j = 0.5 everywhere).
std::shared_ptr<TransformerImpl> bird_eye_model() {
  auto model = random_model(tiny_config("bet_sf"));
  torch::NoGradGuard no_grad;
  for (auto& layer : *model->layers) layer->as<TransformerBlock>()->attn->bird_eye.normal_(0.0, 1.0);
  return model;
}

TEST(Layer0Reference, VanillaAttentionMatchesFloat64) {
  auto model = random_model(tiny_config("transformer_lm"));
  torch::manual_seed(11);
  const auto input = sample_input();
  const auto result = model->forward(input, capture_all());
  const auto expected = reference_layer0_attention(*model, input.input_ids, 1.0, false);
  EXPECT_TRUE(torch::allclose(result.attention[0].to(torch::kFloat64), expected, 1e-5, 1e-6))
      << max_difference(result.attention[0], expected);
}

TEST(Layer0Reference, ScaledDiagonalMatchesFloat64) {
  auto model = random_model(tiny_config("transformer_lm"));
  torch::manual_seed(12);
  const auto input = sample_input();
  for (double factor : {0.0, 0.2, 2.0}) {
    auto options = capture_all();
    options.diagonal = DiagonalIntervention::scale(factor);
    const auto result = model->forward(input, options);
    const auto expected = reference_layer0_attention(*model, input.input_ids, factor, true);
    EXPECT_TRUE(torch::allclose(result.attention[0].to(torch::kFloat64), expected, 1e-5, 1e-6))
        << "factor " << factor << ": " << max_difference(result.attention[0], expected);
  }
}

TEST(Layer0Reference, BirdEyeAttentionMatchesFloat64) {
  auto model = bird_eye_model();
  torch::NoGradGuard no_grad;
  torch::manual_seed(13);
  const auto input = sample_input();
  const auto result = model->forward(input, capture_all());
  const auto expected = reference_layer0_attention(*model, input.input_ids, 1.0, false);
  EXPECT_TRUE(torch::allclose(result.attention[0].to(torch::kFloat64), expected, 1e-5, 1e-6))
      << max_difference(result.attention[0], expected);
}

// diag-sweep on BET(SF): every factor, 1 included, reaches the diagonal (its own mask lifted) and
// equals the float64 recomputation; the model as trained (no intervention) keeps its diagonal masked.
TEST(Layer0Reference, BirdEyeScaledDiagonalReachesTheDiagonal) {
  auto model = bird_eye_model();
  torch::NoGradGuard no_grad;
  torch::manual_seed(14);
  const auto input = sample_input();
  std::vector<torch::Tensor> diagonals;
  for (double factor : {0.2, 1.0, 2.0}) {
    auto options = capture_all();
    options.diagonal = DiagonalIntervention::scale(factor);
    const auto attention = model->forward(input, options).attention[0];
    const auto expected = reference_layer0_attention(*model, input.input_ids, factor, true);
    EXPECT_TRUE(torch::allclose(attention.to(torch::kFloat64), expected, 1e-5, 1e-6))
        << "factor " << factor << ": " << max_difference(attention, expected);
    diagonals.push_back(attention.diagonal(0, -2, -1).narrow(-1, 1, 8));  // rows after the first
  }
  EXPECT_GT(diagonals[0].min().item<double>(), 0.0);
  EXPECT_GT(diagonals[1].min().item<double>(), 0.0);  // ×1 lifts the mask too
  EXPECT_GT((diagonals[2] - diagonals[0]).abs().max().item<double>(), 1e-3);
  const auto trained = model->forward(input, capture_all()).attention[0].diagonal(0, -2, -1).narrow(-1, 1, 8);
  EXPECT_EQ(trained.abs().max().item<double>(), 0.0);  // as trained: masked
}

}  // namespace
}  // namespace aw
