// tests/analysis/circuits/test_token_attribution_translation.cpp — token attribution on translation
// models: the joint rollout, flow and Chefer et al.'s encoder–decoder rules on a hand-worked model of
// one encoder and one decoder layer, and on Hugging Face's Marian and BART against plain PyTorch
// (tests/fixtures/circuits/marian.json, bart.json "attribution";
// scripts/fixtures/make_translation_circuit_fixtures.py): the four score vectors over source and
// target tokens, the explained probability and every deletion and insertion curve over the source.
#include "analysis/circuits/token_attribution.h"
#include "analysis/circuits/token_curves.h"
#include "analysis/circuits/translation_attribution.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/model_config.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

// Blocks: enc 0, dec 1, cross 2; one head each.
ModelConfig one_layer_each() {
  return parse_model_config({{"model_type", "transformer_mt"}, {"vocab_size", 20}, {"encoder_layers", 1},
                             {"decoder_layers", 1}, {"n_heads", 1}, {"d_model", 4}, {"d_ff", 8}, {"max_positions", 8},
                             {"norm", "pre"}, {"positions", "learned"}, {"dropout", 0.0}},
                            "hand-worked transformer_mt");
}

torch::Tensor matrix(std::vector<double> values) {
  return torch::tensor(values, torch::kFloat64).reshape({1, 2, 2});
}

// A_enc = [[1, 0], [0.5, 0.5]], A_dec = [[1, 0], [0.2, 0.8]], A_cross = [[0.6, 0.4], [0.3, 0.7]].
std::vector<torch::Tensor> hand_patterns() {
  return {matrix({1, 0, 0.5, 0.5}), matrix({1, 0, 0.2, 0.8}), matrix({0.6, 0.4, 0.3, 0.7})};
}

void expect_vector(const torch::Tensor& computed, const std::vector<double>& expected, const std::string& what,
                   double tolerance = 1e-15) {
  ASSERT_EQ(computed.size(0), static_cast<int64_t>(expected.size())) << what;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(computed[static_cast<int64_t>(i)].item<double>(), expected[i],
                tolerance * std::max(1.0, std::abs(expected[i])))
        << what << " at " << i;
}

TEST(TranslationAttribution, AttentionIsTheLastCrossAndSelfRows) {
  expect_vector(translation_attention(one_layer_each(), hand_patterns(), 1), {0.3, 0.7, 0.2, 0.8}, "attention");
}

TEST(TranslationAttribution, RolloutHandWorked) {
  // E = Â_enc = [[1, 0], [0.25, 0.75]]; after the self block R = [[0, 0, 1, 0], [0, 0, 0.1, 0.9]]; the cross
  // block's row 1: ½ R[1] + ½ [A_cross[1] E | 0] = ½ [0, 0, 0.1, 0.9] + ½ [0.475, 0.525, 0, 0].
  const auto rollout = translation_rollout(one_layer_each(), hand_patterns(), 1);
  expect_vector(rollout, {0.2375, 0.2625, 0.05, 0.45}, "rollout");
  EXPECT_NEAR(rollout.sum().item<double>(), 1.0, 1e-15);
  expect_vector(translation_rollout(one_layer_each(), hand_patterns(), 0), {0.35, 0.15, 0.5, 0}, "rollout row 0");
}

TEST(TranslationAttribution, FlowHandWorked) {
  // From decoder position 1 above the cross block: ½ down to itself, 0.15 and 0.35 into the encoder's top.
  // Source 0: 0.15 through encoder row 0, min(0.35, 0.25) through row 1; source 1: min(0.35, 0.75);
  // target 0: min(½, 0.1); target 1: min(½, 0.9).
  expect_vector(translation_flow(one_layer_each(), hand_patterns(), 1), {0.40, 0.35, 0.1, 0.5}, "flow");
}

TEST(TranslationAttribution, GradientRulesHandWorked) {
  // ∇ = 2 on the encoder (its Ā = 2 A_enc), 1 elsewhere: R_ss = I + 2 A_enc = [[3, 0], [1, 2]], whose
  // residual rows normalise to R̄_ss = [[2, 0], [0.5, 1.5]]; R_tt = R̄_tt = I + A_dec = [[2, 0], [0.2, 1.8]];
  // R_ts = R̄_ttᵀ A_cross R̄_ss = [[2.99, 1.41], [1.71, 1.89]].
  const std::vector<torch::Tensor> gradients{torch::full({1, 2, 2}, 2.0, torch::kFloat64),
                                             torch::ones({1, 2, 2}, torch::kFloat64),
                                             torch::ones({1, 2, 2}, torch::kFloat64)};
  const auto config = one_layer_each();
  expect_vector(translation_gradient_rollout(config, hand_patterns(), gradients, 1), {1.71, 1.89, 0.2, 1.8}, "row 1",
                1e-14);
  expect_vector(translation_gradient_rollout(config, hand_patterns(), gradients, 0), {2.99, 1.41, 2, 0}, "row 0", 1e-14);
  // A negative gradient is clipped: no relevance flows through the cross block.
  auto negative = gradients;
  negative[2] = -negative[2];
  expect_vector(translation_gradient_rollout(config, hand_patterns(), negative, 1), {0, 0, 0.2, 1.8}, "clipped");
}

TEST(TranslationAttribution, ResidualNormalisationKeepsEmptyRows) {
  // Row 0 has nothing besides the identity (it stays I's row); row 1's off-identity part sums to 4.
  const auto relevance = torch::tensor({1.0, 0.0, 1.0, 4.0}, torch::kFloat64).reshape({2, 2});
  const auto normalised = residual_normalised(relevance);
  EXPECT_TRUE(torch::allclose(normalised, torch::tensor({1.0, 0.0, 0.25, 1.75}, torch::kFloat64).reshape({2, 2}), 0,
                              1e-15));
}

// ---- Hugging Face's Marian and BART ----------------------------------------------------------------

class TranslationAttributionHuggingFace : public ::testing::TestWithParam<std::string> {};

TEST_P(TranslationAttributionHuggingFace, ScoresAndCurvesEqualTheReference) {
  const auto folder = GetParam() == "marian" ? "marian_tiny" : "bart_tiny";
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf/" + std::string(folder));
  std::ifstream in(AW_SOURCE_DIR "/tests/fixtures/circuits/" + GetParam() + ".json");
  ASSERT_TRUE(in);
  const auto reference = nlohmann::json::parse(in)["attribution"];
  const auto source = reference["source"].get<std::vector<int64_t>>();
  ModelInput input;
  input.input_ids = torch::tensor(source, torch::kLong).unsqueeze(0);
  input.decoder_input_ids = torch::tensor(reference["target_ids"].get<std::vector<int64_t>>(), torch::kLong).unsqueeze(0);
  const AttributionOutput output{reference["t"].get<int64_t>(), -1};  // the top prediction, as the reference's
  const auto attribution = attribute_tokens(*loaded.model, input, output, /*with_flow=*/true, {});
  EXPECT_EQ(attribution.target, reference["target"].get<int64_t>());
  EXPECT_NEAR(attribution.probability, reference["probability"].get<double>(), 1e-5);
  const auto& names = attribution_method_names();
  const auto n = static_cast<int64_t>(source.size());
  for (size_t m = 0; m < names.size(); ++m) {
    const auto expected = reference[names[m]].get<std::vector<double>>();
    expect_vector(attribution.scores[m], expected, names[m], 1e-5);
    // The curves of the reference's own order over the source (a near-tie may order two tokens differently).
    const auto order = reference["order_" + names[m]].get<std::vector<int64_t>>();
    ASSERT_EQ(static_cast<int64_t>(order.size()), n - 1);  // every source token but the closing EOS
    const AttributionOutput explained{output.position, attribution.target};
    const auto curves = ranking_curves(*loaded.model, input, explained, {order}, curve_counts(n - 1, 100), {}, names[m]);
    const auto deletion = reference["deletion_" + names[m]];
    const auto insertion = reference["insertion_" + names[m]];
    ASSERT_EQ(curves.deletion.size(), deletion.size());
    for (size_t k = 0; k < deletion.size(); ++k) {
      EXPECT_NEAR(curves.deletion[k].probability, deletion[k].get<double>(), 1e-5) << names[m] << " deletion " << k;
      EXPECT_NEAR(curves.insertion[k].probability, insertion[k].get<double>(), 1e-5) << names[m] << " insertion " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, TranslationAttributionHuggingFace, ::testing::Values("marian", "bart"));

}  // namespace
}  // namespace aw
