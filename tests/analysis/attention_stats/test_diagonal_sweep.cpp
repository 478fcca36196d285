// tests/analysis/attention_stats/test_diagonal_sweep.cpp — each sweep point equals the model evaluated
// under that diagonal intervention (×1 on BET(SF): its mask lifted), with its paired bootstrap
// (analysis/attention_stats/diagonal_sweep)
#include "analysis/attention_stats/diagonal_sweep.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::tiny_batches;

TEST(DiagonalSweep, EachPointIsTheModelEvaluatedWithThatIntervention) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const Evaluator evaluate = [&](const ForwardOptions& options, const ProgressCallback& progress) {
    return evaluate_perplexity(*loaded.model, batches, options, progress);
  };
  std::vector<std::pair<int64_t, int64_t>> reports;
  const auto result = diagonal_sweep("tiny", parse_diagonal_factors("1,0.2,mask"), evaluate,
                                     static_cast<int64_t>(batches.size()), {}, [&](int64_t done, int64_t total) {
                                       reports.emplace_back(done, total);
                                       return true;
                                     });
  ASSERT_EQ(result.points.size(), 3u);
  EXPECT_EQ(result.metric_name, "perplexity");
  auto with = [&](DiagonalIntervention intervention) {
    ForwardOptions options;
    options.diagonal = intervention;
    return evaluate_perplexity(*loaded.model, batches, options).metric;
  };
  EXPECT_DOUBLE_EQ(result.points[0].metric, evaluate_perplexity(*loaded.model, batches).metric);
  EXPECT_DOUBLE_EQ(result.points[1].metric, with(DiagonalIntervention::scale(0.2)));
  EXPECT_DOUBLE_EQ(result.points[2].metric, with(DiagonalIntervention::mask()));
  EXPECT_NE(result.points[1].metric, result.points[0].metric);  // the intervention reaches the model
  EXPECT_NE(result.points[2].metric, result.points[0].metric);
  EXPECT_DOUBLE_EQ(result.baseline, result.points[0].metric);  // factor 1 of a normally trained model
  EXPECT_DOUBLE_EQ(result.points[1].delta, result.points[1].metric - result.baseline);
  ASSERT_EQ(reports.size(), 8u);  // 2 batches × (the baseline + 3 points), counted across them
  EXPECT_EQ(reports.back().first, 8);
  EXPECT_EQ(reports.back().second, 8);
  EXPECT_EQ(write_csv(diagonal_sweep_table(result)).rfind("# model=tiny, metric=perplexity, baseline=", 0), 0u);
  EXPECT_NE(write_csv(diagonal_sweep_table(result)).find("\nfactor,metric,delta\n1,"), std::string::npos);
}

// On BET(SF), trained with its diagonal-free mask, the ×1 point is the sweep's formula at 1 — the mask
// lifted, the same weights without it — and the baseline is the model as trained.
TEST(DiagonalSweep, FactorOneOnAMaskedModelIsTheSameWeightsWithoutTheMask) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  ASSERT_TRUE(loaded.config.diag_free_mask);
  auto unmasked_config = loaded.config;
  unmasked_config.diag_free_mask = false;
  auto unmasked = create_model(unmasked_config);
  test::copy_weights(loaded.model->module(), unmasked->module());
  unmasked->module().eval();
  const auto batches = tiny_batches();
  const Evaluator evaluate = [&](const ForwardOptions& options, const ProgressCallback& progress) {
    return evaluate_perplexity(*loaded.model, batches, options, progress);
  };
  const auto result = diagonal_sweep("tiny", parse_diagonal_factors("1"), evaluate, static_cast<int64_t>(batches.size()));
  ASSERT_EQ(result.points.size(), 1u);
  EXPECT_DOUBLE_EQ(result.baseline, evaluate_perplexity(*loaded.model, batches).metric);
  EXPECT_DOUBLE_EQ(result.points[0].metric, evaluate_perplexity(*unmasked, batches).metric);
  EXPECT_NE(result.points[0].metric, result.baseline);
}

// With a bootstrap, each point's interval and p-value are delta_significance over the per-window
// losses of the baseline and of that point, each window evaluated on its own here.
TEST(DiagonalSweep, BootstrapIsThePairedBootstrapOfEachWindowsLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const auto data = language_model_data(batches);
  SignificanceOptions options;
  options.resamples = 400;
  options.seed = 5;
  const auto result = diagonal_sweep("tiny", parse_diagonal_factors("0,mask"), data_evaluator(*loaded.model, data, true),
                                     static_cast<int64_t>(batches.size()), {}, {}, options);
  ASSERT_EQ(result.points.size(), 2u);
  // Per window: its summed token loss and its predicted tokens, from a forward of that window alone.
  std::vector<DiagonalIntervention> settings{DiagonalIntervention{}, DiagonalIntervention::scale(0.0),
                                             DiagonalIntervention::mask()};
  std::vector<ModelInput> windows;
  for (const auto& batch : batches)
    for (int64_t row = 0; row < batch.input_ids.size(0); ++row)
      windows.push_back(batch.map([&](const torch::Tensor& t) { return t.narrow(0, row, 1); }));
  auto sums = torch::zeros({static_cast<int64_t>(windows.size()), 3}, torch::kFloat64);
  auto counts = torch::zeros({static_cast<int64_t>(windows.size())}, torch::kFloat64);
  for (size_t w = 0; w < windows.size(); ++w)
    for (size_t s = 0; s < settings.size(); ++s) {
      ForwardOptions forward;
      forward.diagonal = settings[s];
      const auto alone = evaluate_perplexity(*loaded.model, {windows[w]}, forward);
      sums[w][s] = alone.loss * static_cast<double>(alone.count);
      counts[w] = static_cast<double>(alone.count);
    }
  const auto expected = delta_significance({"perplexity", sums, counts}, 0, {1, 2}, options);
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_NEAR(result.points[p].significance.low, expected[p].low, 1e-3 * std::abs(expected[p].low) + 1e-6);
    EXPECT_NEAR(result.points[p].significance.high, expected[p].high, 1e-3 * std::abs(expected[p].high) + 1e-6);
    EXPECT_DOUBLE_EQ(result.points[p].significance.p_value, expected[p].p_value);
    EXPECT_DOUBLE_EQ(result.points[p].significance.p_adjusted, expected[p].p_adjusted);
  }
  EXPECT_NE(write_csv(diagonal_sweep_table(result)).find(", bootstrap=400, seed=5, correction=holm\nfactor,metric,delta,delta_low,"),
            std::string::npos);
}

TEST(DiagonalSweep, FactorListsAreChecked) {
  EXPECT_EQ(parse_diagonal_factors(default_diagonal_factors()).size(), 11u);
  EXPECT_EQ(parse_diagonal_factors("mask").front().intervention.kind, DiagonalIntervention::Kind::Mask);
  for (const std::string bad : {"", "0,,1", "-1", "x", "1e999"}) {
    try {
      parse_diagonal_factors(bad);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("--factors"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace aw
