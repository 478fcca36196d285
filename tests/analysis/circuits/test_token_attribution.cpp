// tests/analysis/circuits/test_token_attribution.cpp — attention rollout, attention flow and
// gradient-weighted rollout on hand-worked cases, the maximum flow on a textbook network, and on the
// tiny GPT-2, Llama and Gemma 2 folders against plain PyTorch on Hugging Face's classes
// (tests/fixtures/circuits/, scripts/fixtures/make_circuit_fixtures.py): the four rankings, the
// explained probability and every deletion and insertion curve.
#include "analysis/circuits/max_flow.h"
#include "analysis/circuits/token_attribution.h"
#include "analysis/circuits/token_curves.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/random_transformer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <tuple>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/circuits/";

TEST(MaxFlow, TextbookNetwork) {
  // CLRS Figure 26.1: s=0, v1..v4 = 1..4, t=5; maximum flow 23.
  FlowNetwork network(6);
  network.add_edge(0, 1, 16), network.add_edge(0, 2, 13), network.add_edge(2, 1, 4), network.add_edge(1, 3, 12);
  network.add_edge(3, 2, 9), network.add_edge(2, 4, 14), network.add_edge(4, 3, 7), network.add_edge(3, 5, 20);
  network.add_edge(4, 5, 4);
  EXPECT_DOUBLE_EQ(network.max_flow(0, 5), 23);
  EXPECT_DOUBLE_EQ(network.max_flow(0, 5), 23);  // flows start again at 0
  EXPECT_DOUBLE_EQ(network.max_flow(0, 0), 0);
  EXPECT_DOUBLE_EQ(network.max_flow(5, 0), 0);  // no way back
}

// Two tokens, two layers of one head: A₁ = [[1, 0], [0.5, 0.5]], A₂ = [[1, 0], [0.2, 0.8]].
std::vector<torch::Tensor> two_layers() {
  return {torch::tensor({1.0, 0.0, 0.5, 0.5}, torch::kFloat64).reshape({1, 2, 2}),
          torch::tensor({1.0, 0.0, 0.2, 0.8}, torch::kFloat64).reshape({1, 2, 2})};
}

TEST(Rollout, HandWorked) {
  // Â₁ = [[1, 0], [0.25, 0.75]], Â₂ = [[1, 0], [0.1, 0.9]]; row 1 of Â₂Â₁ = [0.1 + 0.225, 0.675].
  const auto rollout = attention_rollout(two_layers(), torch::tensor({0.0, 1.0}, torch::kFloat64));
  EXPECT_NEAR(rollout[0].item<double>(), 0.325, 1e-15);
  EXPECT_NEAR(rollout[1].item<double>(), 0.675, 1e-15);
  // A learned sink's rows sum to less than 1: Â's rows are renormalised.
  const auto sunk = residual_attention(torch::tensor({0.4, 0.0, 0.2, 0.2}, torch::kFloat64).reshape({1, 2, 2}));
  EXPECT_NEAR(sunk[0][0].item<double>(), 1.0, 1e-15);
  EXPECT_NEAR(sunk[1][0].item<double>(), 0.1 / 0.7, 1e-15);
}

TEST(Flow, HandWorked) {
  // From (2, 1): to (0, 0) through (1, 0) at most min(0.1, 1) and through (1, 1) min(0.9, 0.25): 0.35;
  // to (0, 1) only through (1, 1): min(0.9, 0.75) = 0.75.
  const auto flow = attention_flow(two_layers(), torch::tensor({0.0, 1.0}, torch::kFloat64));
  EXPECT_NEAR(flow[0].item<double>(), 0.35, 1e-15);
  EXPECT_NEAR(flow[1].item<double>(), 0.75, 1e-15);
  // One layer: the flow to each token is its edge.
  const std::vector<torch::Tensor> one{two_layers()[0]};
  const auto direct = attention_flow(one, torch::tensor({0.0, 1.0}, torch::kFloat64));
  EXPECT_NEAR(direct[0].item<double>(), 0.25, 1e-15);
  EXPECT_NEAR(direct[1].item<double>(), 0.75, 1e-15);
}

TEST(GradientRollout, HandWorked) {
  // Ā₁ = max(∇A₁ ⊙ A₁, 0) = [[1, 0], [0, 0.5]] with ∇A₁ = [[1, 1], [-1, 1]]; Ā₂ = 0 (∇A₂ = 0).
  const auto gradients = std::vector<torch::Tensor>{torch::tensor({1.0, 1.0, -1.0, 1.0}, torch::kFloat64).reshape({1, 2, 2}),
                                                    torch::zeros({1, 2, 2}, torch::kFloat64)};
  const auto relevance = gradient_rollout(two_layers(), gradients, torch::tensor({0.0, 1.0}, torch::kFloat64));
  // R = I + Ā₁ = [[2, 0], [0, 1.5]]; row 1.
  EXPECT_DOUBLE_EQ(relevance[0].item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(relevance[1].item<double>(), 1.5);
}

TEST(TokenCurves, RankingAndCounts) {
  const auto scores = torch::tensor({0.1, 0.5, 0.5, 0.9, 0.0}, torch::kFloat64);
  EXPECT_EQ(ranked(scores, {0, 1, 2, 3}), (std::vector<int64_t>{3, 1, 2, 0}));  // ties by position
  EXPECT_EQ(curve_counts(3, 20), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(curve_counts(10, 4), (std::vector<int64_t>{0, 3, 5, 8, 10}));
}

// The gradients read at the pattern hook are the model's own: central differences of the explained
// logit when one probability is moved at that hook, in float64.
TEST(GradientRollout, GradientsEqualFiniteDifferences) {
  ModelConfig config;
  config.vocab_size = 20, config.n_blocks = 2, config.n_heads = 2, config.heads_per_block = {2, 2};
  config.d_model = 8, config.d_head = 4, config.d_ff = 16, config.max_positions = 8, config.dropout = 0;
  auto model = test::random_model(config, 4, /*every_parameter=*/true);
  model->to(torch::kFloat64);
  const auto input = test::input_of({3, 7, 1, 9, 4});
  const AttributionOutput output{4, 2};
  // With one layer's probability moved at the hook and every later layer recomputed, the logit's change
  // over 2ε is the total derivative ∂logit/∂A[h, i, j].
  const auto read = pattern_gradients(*model, input, output, {});
  for (int64_t layer = 0; layer < 2; ++layer)
    for (const auto& [head, i, j] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{0, 4, 1}, {1, 3, 0}, {1, 4, 4}}) {
      auto logit_at = [&](double epsilon) {
        ForwardOptions options;
        options.hooks.add(HookPoint::Pattern, layer, [&](const HookSite&, const torch::Tensor& value) {
          auto moved = value.clone();
          moved[0][head][i][j] += epsilon;
          return moved;
        });
        c10::InferenceMode inference;
        return model->forward(input, options).logits[0][4][2].item<double>();
      };
      const double epsilon = 1e-6;
      const double numeric = (logit_at(epsilon) - logit_at(-epsilon)) / (2 * epsilon);
      EXPECT_NEAR(read.gradients[layer][head][i][j].item<double>(), numeric, 1e-6 * std::max(1.0, std::abs(numeric)))
          << "layer " << layer << " head " << head;
    }
  const auto attribution = attribute_tokens(*model, input, output, false, {});
  const auto expected = gradient_rollout(read.patterns, read.gradients, output_readout(config, output, input));
  EXPECT_TRUE(torch::equal(attribution.scores[static_cast<int>(AttributionMethod::Gradient)], expected));
}

// ---- Hugging Face's classes ------------------------------------------------------------------------

void expect_scores(const torch::Tensor& computed, const nlohmann::json& expected, const std::string& what) {
  ASSERT_EQ(computed.size(0), static_cast<int64_t>(expected.size())) << what;
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(computed[static_cast<int64_t>(i)].item<double>(), expected[i].get<double>(),
                1e-5 * std::max(1.0, std::abs(expected[i].get<double>())))
        << what << " at " << i;
}

class AttributionHuggingFace : public ::testing::TestWithParam<std::string> {};

TEST_P(AttributionHuggingFace, RankingsAndCurvesEqualTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  std::ifstream in(kReferences + GetParam() + ".json");
  ASSERT_TRUE(in);
  const auto file = nlohmann::json::parse(in);
  const auto& reference = file["attribution"];
  ModelInput input;
  input.input_ids = torch::tensor(file["ids"].get<std::vector<int64_t>>(), torch::kLong).unsqueeze(0);
  // The target from the file: Gemma 2's final soft-cap ties several logits at 3.0 in float32.
  AttributionOutput output{file["t"].get<int64_t>(), reference["target"].get<int64_t>()};
  const auto attribution = attribute_tokens(*loaded.model, input, output, /*with_flow=*/true, {});
  EXPECT_NEAR(attribution.probability, reference["probability"].get<double>(), 1e-5);
  const auto& names = attribution_method_names();
  std::vector<int64_t> candidates;
  for (int64_t i = 0; i < output.position; ++i) candidates.push_back(i);
  for (size_t m = 0; m < names.size(); ++m) {
    expect_scores(attribution.scores[m], reference[names[m]], names[m]);
    // The curves of the reference's own order (a near-tie may order two tokens differently here).
    const auto order = reference["order_" + names[m]].get<std::vector<int64_t>>();
    const auto curves = ranking_curves(*loaded.model, input, output, {order}, curve_counts(output.position, 100), {},
                                       names[m]);
    const auto deletion = reference["deletion_" + names[m]];
    const auto insertion = reference["insertion_" + names[m]];
    ASSERT_EQ(curves.deletion.size(), deletion.size());
    for (size_t k = 0; k < deletion.size(); ++k) {
      EXPECT_NEAR(curves.deletion[k].probability, deletion[k].get<double>(), 1e-5) << names[m] << " deletion " << k;
      EXPECT_NEAR(curves.insertion[k].probability, insertion[k].get<double>(), 1e-5) << names[m] << " insertion " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, AttributionHuggingFace, ::testing::Values("gpt2", "llama", "gemma2"));

}  // namespace
}  // namespace aw
