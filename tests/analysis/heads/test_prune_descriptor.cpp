// tests/analysis/heads/test_prune_descriptor.cpp — prune over a run's epochs and with the order ranked on
// another file or read from a CSV (analysis/heads/prune_descriptor)
#include "analysis/heads/head_pruning.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/pruning_study.h"
#include "analysis/core/corpus_data.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "table/csv_format.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::setting_error_of;

// A run folder with two kept epochs (different weights), each with the history train writes.
void write_epoch_series(const std::string& run) {
  test::write_tiny_checkpoint(run, test::tiny_config("transformer_lm"), 9);
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const auto dir = run + "/epoch-" + std::to_string(epoch);
    test::write_tiny_checkpoint(dir, test::tiny_config("transformer_lm"), 7 + epoch);
    std::string epochs;
    for (int e = 1; e <= epoch; ++e)
      epochs += std::string(e > 1 ? "," : "") + "{\"epoch\": " + std::to_string(e) + ", \"step\": " +
                std::to_string(5 * e) + ", \"train_loss\": 3.0, \"valid_loss\": 2.5, \"valid_perplexity\": 12.2}";
    test::write_file(dir + "/training.json",
                     "{\"history\": {\"metric\": \"perplexity\", \"steps\": [], \"epochs\": [" + epochs + "]}}");
  }
}

// prune --series: per epoch checkpoint, the curve that pruning that checkpoint alone draws, and the
// share prunable_shares reads off it.
TEST_F(DescriptorRun, PruneSeriesIsEachEpochsOwnCurve) {
  write_epoch_series(dir_.file("run"));
  const auto run = load_checkpoint(dir_.file("run"));
  AnalysisRequest request;
  request.models = {&run};
  request.settings = analysis("prune").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("order", "oracle");
  request.settings.set("step", "50");
  request.settings.set("bootstrap", "0");
  request.settings.set("max-drop", "5");
  request.settings.set_flag("series", true);
  const auto report = analysis("prune")(request);
  // csv: epoch, step, order, base_metric, prunable_percent, prunable_heads, metric_at_prunable;
  // curves: epoch, step, then pruning_table's columns.
  const auto& shares_table = report.tables.at("csv");
  const auto& curves_table = report.tables.at("curves");
  ASSERT_EQ(shares_table.row_count(), 2);
  int64_t curve_row = 0;
  std::vector<double> first_metrics;
  for (int epoch = 1; epoch <= 2; ++epoch) {
    const int64_t row = epoch - 1;
    EXPECT_EQ(shares_table.number(row, shares_table.column("epoch")), epoch);
    EXPECT_EQ(shares_table.number(row, shares_table.column("step")), 5 * epoch);
    const auto loaded = load_checkpoint(dir_.file("run") + "/epoch-" + std::to_string(epoch));
    const auto data =
        language_model_data(make_window_batches(read_token_corpus(dir_.file("corpus.txt"), *loaded.tokenizer), 8, 8));
    const auto order = rank_heads(*loaded.model, loaded.name, data, "oracle");
    const auto curve = pruning_curve(*loaded.model, data, "oracle", order, 50.0);
    for (size_t p = 0; p < curve.size(); ++p, ++curve_row) {
      EXPECT_EQ(curves_table.number(curve_row, curves_table.column("epoch")), epoch);
      EXPECT_NEAR(curves_table.number(curve_row, curves_table.column("metric")), curve[p].metric, 1e-9 * curve[p].metric);
    }
    first_metrics.push_back(curve[0].metric);
    const auto shares = prunable_shares(curve, "perplexity", 5.0);
    EXPECT_EQ(shares_table.number(row, shares_table.column("prunable_heads")), shares[0].heads);
    EXPECT_NEAR(shares_table.number(row, shares_table.column("base_metric")), curve[0].metric, 1e-9 * curve[0].metric);
  }
  EXPECT_EQ(curves_table.row_count(), curve_row);
  EXPECT_NE(first_metrics[0], first_metrics[1]);  // two different models
  EXPECT_EQ(write_csv(report.tables.at("csv")).substr(0, write_csv(report.tables.at("csv")).find('\n')),
            "# model=run, metric=perplexity, max_drop=5, series=" + dir_.file("run"));
  EXPECT_NE(write_csv(report.tables.at("curves")).find("\n2,10,oracle,50,3,"), std::string::npos) << write_csv(report.tables.at("curves"));
  // The share's change from the first epoch to the last (no bootstrap here: the change alone).
  const auto& change = report.tables.at("change");
  ASSERT_EQ(change.row_count(), 1);
  EXPECT_EQ(change.text(0, change.column("order")), "oracle");
  EXPECT_EQ(change.number(0, change.column("delta")),
            shares_table.number(1, shares_table.column("prunable_percent")) -
                shares_table.number(0, shares_table.column("prunable_percent")));
  EXPECT_EQ(change.column("delta_low"), -1);
}

// The held-out protocol: heads ranked on one file, the curve drawn on another.
TEST_F(DescriptorRun, PruneRanksOnOneFileAndDrawsTheCurveOnAnother) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  auto windows = [&](const std::string& file) {
    return language_model_data(make_window_batches(read_token_corpus(dir_.file(file), *lm.tokenizer), 8, 8));
  };
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("prune").settings();
  request.settings.set("text", dir_.file("other.txt"));
  request.settings.set("rank-text", dir_.file("corpus.txt"));
  request.settings.set("order", "importance");
  request.settings.set("window", "8");
  request.settings.set("step", "50");
  request.settings.set("bootstrap", "0");
  const auto report = analysis("prune")(request);

  PruningResult expected;
  expected.model = lm.name;
  expected.metric_name = "perplexity";
  expected.ranked_on = dir_.file("corpus.txt");
  const auto order = rank_heads(*lm.model, lm.name, windows("corpus.txt"), "importance");
  expected.points = pruning_curve(*lm.model, windows("other.txt"), "importance", order, 50.0);
  EXPECT_EQ(write_csv(report.tables.at("csv")), write_csv(pruning_table(expected)));
  // Ranked on the curve's own file the order differs here, so the ranking file really chose it.
  auto positions = [](const std::vector<HeadRef>& heads) {
    std::vector<std::pair<int64_t, int64_t>> pairs;
    for (const auto& head : heads) pairs.emplace_back(head.layer, head.head);
    return pairs;
  };
  EXPECT_NE(positions(rank_heads(*lm.model, lm.name, windows("other.txt"), "importance")), positions(order));

  // The same order read back from an importance CSV of the ranking file gives the same curve.
  AnalysisRequest importance;
  importance.models = {&lm};
  importance.settings = analysis("importance").settings();
  importance.settings.set("text", dir_.file("corpus.txt"));
  importance.settings.set("window", "8");
  test::write_file(dir_.file("importance.csv"), write_csv(analysis("importance")(importance).tables.at("csv")));
  request.settings.erase("rank-text");
  request.settings.erase("order");
  request.settings.set("order-from", dir_.file("importance.csv"));
  expected.ranked_on = dir_.file("importance.csv");
  EXPECT_EQ(write_csv(analysis("prune")(request).tables.at("csv")), write_csv(pruning_table(expected)));

  request.settings.set("rank-text", dir_.file("corpus.txt"));
  EXPECT_EQ(setting_error_of([&] { analysis("prune")(request); }), "--rank-text and --order-from both choose the order; give one");
}

// Michel Figure 3's question tested: both orders' metrics at each step that prunes some heads but not
// all, their difference, and its bootstrap paired over the same windows, Holm over those steps.
TEST_F(DescriptorRun, PruneComparesTheTwoOrdersStepByStep) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("prune").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("step", "20");
  request.settings.set("bootstrap", "200");
  request.settings.set("min-units", "2");
  const auto report = analysis("prune")(request);
  const auto& curves = report.tables.at("csv");
  const auto& between = report.tables.at("between");
  EXPECT_EQ(between.meta_text("difference"), "importance - oracle");
  auto metric_at = [&](const std::string& order, double percent) {
    for (int64_t row = 0; row < curves.row_count(); ++row)
      if (curves.text(row, curves.column("order")) == order && curves.number(row, curves.column("percent_pruned")) == percent)
        return curves.number(row, curves.column("metric"));
    ADD_FAILURE() << "no " << order << " point at " << percent;
    return 0.0;
  };
  // 6 heads, 20 % a step: 1, 2, 4, 5 heads at 20–80 % (0 and 6 are the same heads in both orders).
  ASSERT_EQ(between.row_count(), 4);
  std::vector<double> p_values;
  for (int64_t row = 0; row < between.row_count(); ++row) {
    const double percent = between.number(row, between.column("percent_pruned"));
    EXPECT_DOUBLE_EQ(between.number(row, between.column("metric_importance")), metric_at("importance", percent));
    EXPECT_DOUBLE_EQ(between.number(row, between.column("metric_oracle")), metric_at("oracle", percent));
    const double delta = between.number(row, between.column("delta"));
    EXPECT_NEAR(delta, metric_at("importance", percent) - metric_at("oracle", percent), 1e-9);
    EXPECT_LE(between.number(row, between.column("delta_low")), delta);
    EXPECT_GE(between.number(row, between.column("delta_high")), delta);
    p_values.push_back(between.number(row, between.column("p_value")));
  }
  // Holm over the 4 steps: the smallest p times 4.
  const auto smallest = std::min_element(p_values.begin(), p_values.end()) - p_values.begin();
  EXPECT_DOUBLE_EQ(between.number(smallest, between.column("p_adjusted")), std::min(1.0, 4 * p_values[smallest]));

  request.settings.set("order", "oracle");
  EXPECT_EQ(analysis("prune")(request).tables.count("between"), 0u);
}

// --per-example ranks by Michel's Eq. 2: the order of the per-example importance CSV, the same curve,
// and the form named in the CSV; it is refused where it would change nothing.
TEST_F(DescriptorRun, PruneRanksByPerExampleImportanceOnRequest) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("prune").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("order", "importance");
  request.settings.set("window", "8");
  request.settings.set("step", "50");
  request.settings.set("bootstrap", "0");
  request.settings.set("per-example", "true");
  const auto ranked = analysis("prune")(request).tables.at("csv");
  EXPECT_EQ(ranked.meta_text("importance"), "per_example");

  AnalysisRequest importance;
  importance.models = {&lm};
  importance.settings = analysis("importance").settings();
  importance.settings.set("text", dir_.file("corpus.txt"));
  importance.settings.set("window", "8");
  importance.settings.set("per-example", "true");
  test::write_file(dir_.file("per_example.csv"), write_csv(analysis("importance")(importance).tables.at("csv")));
  AnalysisRequest from_file = request;
  from_file.settings.erase("order");
  from_file.settings.erase("per-example");
  from_file.settings.set("order-from", dir_.file("per_example.csv"));
  const auto read_back = analysis("prune")(from_file).tables.at("csv");
  // The same points: the per-example order, whether ranked here or read from its CSV.
  for (int64_t row = 0; row < ranked.row_count(); ++row)
    EXPECT_EQ(ranked.text(row, ranked.column("metric")), read_back.text(row, read_back.column("metric"))) << row;

  from_file.settings.set("per-example", "true");
  EXPECT_EQ(setting_error_of([&] { analysis("prune")(from_file); }),
            "--per-example ranks by importance here; --order-from's file already holds the order");
  request.settings.set("order", "oracle");
  EXPECT_EQ(setting_error_of([&] { analysis("prune")(request); }),
            "--per-example applies to the importance order; --order oracle ranks by ablation damage");
}

}  // namespace
}  // namespace aw
