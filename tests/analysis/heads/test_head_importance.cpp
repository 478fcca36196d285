// tests/analysis/heads/test_head_importance.cpp — head importance against finite differences of the loss in
// the gates, per example, on two ranks, LAMA and every translation kind (analysis/heads/head_importance)
#include "analysis/heads/head_importance.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/lama.h"
#include "models/training/evaluation.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"
#include "tests/support/two_rank_stand_in.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>
#include <vector>

namespace aw {
namespace {

using test::SharedBatches;
using test::TempDir;
using test::three_runs;
using test::tiny_batches;
using test::tiny_lama;
using test::TinyTranslation;

TEST(HeadImportance, EqualsFiniteDifferencesOfTheLossInTheGates) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);  // so central differences are exact to ~1e-9
  const auto batches = tiny_batches();
  const auto raw = head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false);
  ASSERT_EQ(raw.batches, 2);
  auto loss_at = [&](const ModelInput& batch, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    // Mean next-token cross-entropy over non-padding targets, in float64 throughout.
    const auto logits = loaded.model->forward(batch, options).logits;
    const int64_t n = logits.size(1);
    const auto log_probabilities = torch::log_softmax(logits.narrow(1, 0, n - 1), -1);
    const auto targets = batch.input_ids.narrow(1, 1, n - 1).unsqueeze(-1);
    const auto keep = batch.attention_mask.narrow(1, 1, n - 1).to(torch::kFloat64);
    return (-(log_probabilities.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  for (int64_t layer = 0; layer < 2; ++layer)
    for (int64_t head = 0; head < 3; ++head) {
      double expected = 0.0;
      for (const auto& batch : batches) {
        auto plus = torch::ones({2, 3}, torch::kFloat64), minus = torch::ones({2, 3}, torch::kFloat64);
        plus[layer][head] += step;
        minus[layer][head] -= step;
        expected += std::abs((loss_at(batch, plus) - loss_at(batch, minus)) / (2 * step)) / 2.0;
      }
      EXPECT_NEAR(raw.scores[layer][head], expected, 1e-6 + 1e-5 * expected) << layer << "," << head;
    }
  const auto normalized = head_importance(*loaded.model, "m", language_model_data(batches));
  for (int64_t layer = 0; layer < 2; ++layer) {
    double norm = 0.0;
    for (double v : raw.scores[layer]) norm += v * v;
    for (int64_t head = 0; head < 3; ++head)
      EXPECT_NEAR(normalized.scores[layer][head], raw.scores[layer][head] / std::sqrt(norm), 1e-9);
  }
  EXPECT_EQ(write_csv(importance_table(normalized)).substr(0, 49), "# model=m, normalized=true\nlayer,head,importance\n");
}

TEST(HeadImportance, PerExampleEqualsFiniteDifferencesOfEachWindowsOwnLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);
  const auto batches = tiny_batches();  // 4 windows in 2 batches, the last window padded
  const auto per_example =
      head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false, {}, {}, /*per_example=*/true);
  const auto per_batch = head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false);
  EXPECT_EQ(per_example.examples, 4);
  // One window's own mean next-token loss, in float64.
  auto loss_at = [&](const ModelInput& window, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    const auto logits = loaded.model->forward(window, options).logits;
    const int64_t n = logits.size(1);
    const auto log_probabilities = torch::log_softmax(logits.narrow(1, 0, n - 1), -1);
    const auto targets = window.input_ids.narrow(1, 1, n - 1).unsqueeze(-1);
    const auto keep = window.attention_mask.defined() ? window.attention_mask.narrow(1, 1, n - 1).to(torch::kFloat64)
                                                      : torch::ones({1, n - 1}, torch::kFloat64);
    return (-(log_probabilities.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  for (int64_t layer = 0; layer < 2; ++layer)
    for (int64_t head = 0; head < 3; ++head) {
      double expected = 0.0;
      for (const auto& batch : batches)
        for (int64_t row = 0; row < batch.input_ids.size(0); ++row) {
          const auto window = batch.map([&](const torch::Tensor& t) { return t.narrow(0, row, 1); });
          auto plus = torch::ones({2, 3}, torch::kFloat64), minus = torch::ones({2, 3}, torch::kFloat64);
          plus[layer][head] += step;
          minus[layer][head] -= step;
          expected += std::abs((loss_at(window, plus) - loss_at(window, minus)) / (2 * step)) / 4.0;
        }
      EXPECT_NEAR(per_example.scores[layer][head], expected, 1e-6 + 1e-5 * expected) << layer << "," << head;
    }
  EXPECT_NE(per_example.scores[0][0], per_batch.scores[0][0]);
  EXPECT_EQ(write_csv(importance_table(per_example)).substr(0, 46), "# model=m, normalized=false, per_example=true\n");
}

TEST(HeadImportance, LeavesTheParametersAsTheyWere) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  auto parameters = loaded.model->module().parameters();
  parameters.front().requires_grad_(false);  // one frozen by the caller stays frozen
  head_importance(*loaded.model, "m", language_model_data(tiny_batches()));
  EXPECT_FALSE(parameters.front().requires_grad());
  for (size_t i = 1; i < parameters.size(); ++i) {
    EXPECT_TRUE(parameters[i].requires_grad()) << i;
    EXPECT_FALSE(parameters[i].grad().defined()) << i;
  }
}

TEST_F(SharedBatches, ImportanceEqualsOneProcess) {
  const auto data = language_model_data(batches_);
  for (const bool per_example : {false, true}) {
    auto run = [&] {
      const auto result = head_importance(*model_, "tiny", data, false, {}, {}, per_example);
      return std::make_tuple(result.scores, result.batches, result.examples);
    };
    const auto [whole, part, shared] = three_runs(run);
    EXPECT_EQ(shared, whole) << "per_example " << per_example;
    EXPECT_EQ(std::get<1>(part), 2);  // rank 1's batches
    EXPECT_EQ(std::get<1>(whole), 5);
  }
}

TEST(Lama, PerExampleImportanceEqualsBatchesOfOneExample) {
  // With one example a batch, the per-batch |∂L/∂ξ| is already the per-example one: the batched
  // per-example form (one gate row per example) must give the same numbers.
  auto model = tiny_lama();
  torch::manual_seed(3);
  const auto ids = torch::randint(2, 20, {6, 7}, torch::kLong);
  const auto labels = torch::randint(0, 3, {6}, torch::kLong);
  ClassifierBatches threes, ones;
  for (int64_t start = 0; start < 6; start += 3) {
    ModelInput input;
    input.input_ids = ids.narrow(0, start, 3);
    threes.inputs.push_back(input);
    threes.labels.push_back(labels.narrow(0, start, 3));
  }
  for (int64_t row = 0; row < 6; ++row) {
    ModelInput input;
    input.input_ids = ids.narrow(0, row, 1);
    ones.inputs.push_back(input);
    ones.labels.push_back(labels.narrow(0, row, 1));
  }
  const auto batched = head_importance(*model, "m", classification_data(threes), false, {}, {}, /*per_example=*/true);
  const auto single = head_importance(*model, "m", classification_data(ones), false);
  EXPECT_EQ(batched.examples, 6);
  for (int64_t head = 0; head < 3; ++head)
    EXPECT_NEAR(batched.scores[0][head], single.scores[0][head], 1e-6 * (1 + single.scores[0][head])) << head;
}

TEST(TranslationImportance, EqualsCentralDifferencesOfTheLossInEveryKindsGates) {
  TinyTranslation tiny;
  auto loaded = tiny.checkpoint("m");
  loaded.model->module().to(torch::kFloat64);
  const auto data = tiny.data(loaded, 10);
  ASSERT_EQ(data.inputs.size(), 2u);
  const auto raw = head_importance(*loaded.model, "m", data, /*normalize=*/false);
  auto loss_at = [&](const ModelInput& batch, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    const auto logits = loaded.model->forward(batch, options).logits;  // [B, m, V] over the decoder ids
    const int64_t m = logits.size(1);
    const auto log_p = torch::log_softmax(logits.narrow(1, 0, m - 1), -1);
    const auto targets = batch.decoder_input_ids.narrow(1, 1, m - 1).unsqueeze(-1);
    const auto keep = batch.decoder_attention_mask.narrow(1, 1, m - 1).to(torch::kFloat64);
    return (-(log_p.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  double largest = 0.0;
  for (int64_t block = 0; block < 4; ++block)
    for (int64_t head = 0; head < 2; ++head) {
      double expected = 0.0;
      for (const auto& batch : data.inputs) {
        auto plus = torch::ones({4, 2}, torch::kFloat64), minus = torch::ones({4, 2}, torch::kFloat64);
        plus[block][head] += step;
        minus[block][head] -= step;
        expected += std::abs((loss_at(batch, plus) - loss_at(batch, minus)) / (2 * step)) / 2.0;
      }
      largest = std::max(largest, expected);
      EXPECT_NEAR(raw.scores[block][head], expected, 1e-6 + 1e-5 * expected) << block << "," << head;
    }
  EXPECT_GT(largest, 1e-3) << "the gates do not matter: the test would prove nothing";
  auto selected = raw;
  selected.blocks = {3};
  std::ostringstream expected_rows;
  expected_rows.precision(6);
  expected_rows << "kind,layer,head,importance\ncross,1,1," << raw.scores[3][0] << "\ncross,1,2," << raw.scores[3][1]
                << "\n";
  const auto csv = write_csv(importance_table(selected));
  EXPECT_EQ(csv.substr(csv.find('\n') + 1), expected_rows.str());
}

// A batch whose sources are longer than its targets: the importance reads the targets' length (it read the
// sources', and a longer source made it narrow the target mask past its end).
TEST(TranslationImportance, ReadsABatchWhoseSourcesAreLongerThanItsTargets) {
  TinyTranslation tiny;
  auto loaded = tiny.checkpoint("m");
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  std::vector<TranslationPair> pairs = read_translation_pairs(test::pairs_path());
  for (auto& pair : pairs) pair.source = pair.source + " " + pair.source;
  const auto encoded = encode_pairs(pairs, codec, loaded.config.max_positions, 0);
  const auto data = language_model_data(pair_batches(encoded, 4));
  ASSERT_GT(data.inputs.front().input_ids.size(1), data.inputs.front().predicted_ids().size(1));
  const auto result = head_importance(*loaded.model, "m", data, /*normalize=*/false);
  EXPECT_EQ(result.examples, static_cast<int64_t>(encoded.kept.size()));
  EXPECT_GT(result.scores[3][0] + result.scores[3][1], 0.0);
}

}  // namespace
}  // namespace aw
