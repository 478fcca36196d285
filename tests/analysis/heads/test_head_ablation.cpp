// tests/analysis/heads/test_head_ablation.cpp — single and all-but-one ablation against plain gated forwards,
// with its bootstrap, on language and translation models (analysis/heads/head_ablation)
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/training/evaluation.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::metric_with_gates;
using test::TempDir;
using test::tiny_batches;
using test::TinyTranslation;

class HeadAblation : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadAblation, SingleAndAllButOneMatchPlainGatedForwards) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config(GetParam()));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const auto data = language_model_data(batches);
  // A base setting with one head already off (as the GUI's gate state would be).
  auto base = all_heads_on(loaded.config);
  base[1][2] = 0.0;

  const auto single = ablate_heads(*loaded.model, "m", data, AblationMode::Single, base);
  EXPECT_NEAR(single.baseline, metric_with_gates(*loaded.model, batches, base), 1e-4 * single.baseline);
  ASSERT_EQ(single.heads.size(), 6u);
  for (const auto& effect : single.heads) {
    auto gates = base.clone();
    gates[effect.layer - 1][effect.head - 1] = 0.0;
    const double expected = metric_with_gates(*loaded.model, batches, gates);
    EXPECT_NEAR(effect.metric, expected, 1e-4 * expected) << effect.layer << "," << effect.head;
    EXPECT_NEAR(effect.delta, effect.metric - single.baseline, 1e-9);
  }
  EXPECT_NEAR(single.heads[5].delta, 0.0, 1e-4 * single.baseline);  // layer 2 head 3 was already off

  const auto alone = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne, base);
  ASSERT_EQ(alone.best_per_layer.size(), 2u);
  for (int64_t layer = 0; layer < 2; ++layer) {
    double best = 1e300;
    int64_t best_head = -1;
    for (int64_t head = 0; head < 3; ++head) {
      auto gates = base.clone();
      gates[layer].zero_();
      gates[layer][head] = base[layer][head];
      const double expected = metric_with_gates(*loaded.model, batches, gates);
      EXPECT_NEAR(alone.heads[layer * 3 + head].metric, expected, 1e-4 * expected);
      if (expected < best) best = expected, best_head = head + 1;
    }
    EXPECT_EQ(alone.best_per_layer[layer].head, best_head);
    EXPECT_EQ(alone.best_per_layer[layer].layer, layer + 1);
  }
  const auto csv = write_csv(ablation_table(alone));
  EXPECT_NE(csv.find("\nlayer,best_head,metric,delta\n1,"), std::string::npos) << csv;
}

INSTANTIATE_TEST_SUITE_P(Models, HeadAblation, ::testing::Values("transformer_lm", "bet_sf"));

TEST(ExampleScores, AblationCarriesTheBootstrapOfEveryHead) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 16 * 6; ++i) ids.push_back(2 + (i * 7) % 17);
  const auto data = language_model_data(make_window_batches(ids, 16, 2));
  SignificanceOptions options;
  options.resamples = 300;
  const auto result = ablate_heads(*loaded.model, "m", data, AblationMode::Single, {}, {}, {}, options);
  ASSERT_EQ(result.heads.size(), 6u);
  for (const auto& head : result.heads) {
    // Ordered intervals, proper p-values, Holm never below the raw p, the verdict at α = 0.05.
    EXPECT_LE(head.significance.low, head.significance.high);
    EXPECT_GT(head.significance.p_value, 0);
    EXPECT_LE(head.significance.p_value, head.significance.p_adjusted);
    EXPECT_LE(head.significance.p_adjusted, 1);
    EXPECT_EQ(head.significance.significant, head.significance.p_adjusted <= 0.05);
  }
  const auto csv = write_csv(ablation_table(result));
  EXPECT_NE(csv.find("mode=single, bootstrap=300, seed=1, correction=holm\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("layer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\n"), std::string::npos);
  // Without a bootstrap the table is as before.
  const auto plain = ablate_heads(*loaded.model, "m", data, AblationMode::Single);
  EXPECT_NE(write_csv(ablation_table(plain)).find("mode=single\nlayer,head,metric,delta\n"), std::string::npos);
  EXPECT_FALSE(ablation_table(plain).has_meta("bootstrap"));
  EXPECT_EQ(ablation_table(result).meta_number("bootstrap"), 300);
}

TEST(TranslationAblation, EachHeadsMetricIsTheGatedModelsPerplexity) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const auto data = tiny.data(loaded, 6);
  const auto cross_and_dec = std::vector<int64_t>{2, 3};
  const auto result = ablate_heads(*loaded.model, "m", data, AblationMode::Single, {}, {}, cross_and_dec);
  ASSERT_EQ(result.heads.size(), 4u);
  const auto baseline = evaluate_perplexity(*loaded.model, data.inputs).metric;
  EXPECT_NEAR(result.baseline, baseline, 1e-6 * baseline);
  double largest = 0.0;
  for (const auto& effect : result.heads) {
    ForwardOptions options;
    options.head_gates = all_heads_on(loaded.config);
    options.head_gates[effect.layer - 1][effect.head - 1] = 0.0;
    const auto gated = evaluate_perplexity(*loaded.model, data.inputs, options).metric;  // one whole forward
    EXPECT_NEAR(effect.metric, gated, 1e-5 * gated) << effect.layer << "," << effect.head;
    largest = std::max(largest, std::abs(effect.delta));
  }
  EXPECT_GT(largest, 1e-3);
  const auto csv = write_csv(ablation_table(result));
  EXPECT_NE(csv.find("\nkind,layer,head,metric,delta\ndec,1,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\ncross,1,2,"), std::string::npos) << csv;
  const auto table = ablation_table(result);
  EXPECT_EQ(table.text(2, table.column("kind")), "cross");
  // All-but-one per block: Michel Table 2's layout, one best head per (kind, layer).
  const auto table2 = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne);
  ASSERT_EQ(table2.best_per_layer.size(), 4u);
  const auto table2_csv = write_csv(ablation_table(table2));
  EXPECT_NE(table2_csv.find("kind,layer,best_head,metric,delta\nenc,1,"), std::string::npos) << table2_csv;
  EXPECT_NE(table2_csv.find("\nenc,2,"), std::string::npos);
}

}  // namespace
}  // namespace aw
