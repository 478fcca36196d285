// tests/analysis/heads/test_ablate_descriptor.cpp — the ablate descriptor gives what ablate_heads gives,
// damage signs, and the comparison across two files (analysis/heads/ablate_descriptor)
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/statistics/significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "table/csv_format.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::setting_error_of;

TEST_F(DescriptorRun, AblationEqualsTheFunctionItWraps) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("min-units", "2");  // the fixture's few windows
  const auto report = analysis("ablate")(request);

  // The windows built by hand, not through the descriptor's data reading, resampled by paragraph.
  const auto text = read_token_paragraphs(dir_.file("corpus.txt"), *lm.tokenizer);
  auto data = language_model_data(make_window_batches(text.ids, 8, 8));
  data.blocks = window_paragraphs(text, 8);
  data.unit = "paragraphs";
  SignificanceOptions bootstrap;  // the descriptor's defaults: 1000 resamples, seed 1, Holm
  bootstrap.resamples = 1000;
  bootstrap.min_units = 2;
  bootstrap = significance_for(bootstrap, data, {});  // names the unit and counts them, as the descriptor does
  ASSERT_TRUE(bootstrap.enabled());
  const auto direct = ablate_heads(*lm.model, lm.name, data, AblationMode::Single, {}, {}, {}, bootstrap);
  EXPECT_EQ(write_csv(report.tables.at("csv")), write_csv(ablation_table(direct)));
  ASSERT_TRUE(report.head_scores.has_value());
  EXPECT_EQ(report.head_scores->damage_sign, 1);  // perplexity going up is damage
  ASSERT_EQ(report.head_scores->values.size(), 2u);
  EXPECT_DOUBLE_EQ(report.head_scores->values[1][2], direct.heads[5].delta);
}

// Fewer units than --min-units: the deltas without intervals, p-values or stars, and the reason in
// one note and in the CSV's metadata; at the minimum the bootstrap runs and names what it resampled.
// The units are the text's paragraphs (here its lines, as it has no blank line): windows 0 and 1 of
// the 45 tokens both begin in the first line of 10, so 6 windows are 5 units.
TEST_F(DescriptorRun, TooFewUnitsGiveDeltasWithoutIntervals) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  const auto text = read_token_paragraphs(dir_.file("corpus.txt"), *lm.tokenizer);
  ASSERT_EQ(text.ids.size(), 45u);
  ASSERT_EQ(text.paragraph_starts, (std::vector<int64_t>{0, 10, 20, 30, 40}));
  const int64_t units = 5;
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("bootstrap", "200");
  request.settings.set("min-units", std::to_string(units + 1));
  std::vector<std::string> notes;
  request.note = [&notes](const std::string& note) { notes.push_back(note); };
  const auto refused = analysis("ablate")(request).tables.at("csv");
  const auto reason = "no intervals or p-values: " + std::to_string(units) + " paragraphs are fewer than the " +
                      std::to_string(units + 1) + " independent units the bootstrap needs (--min-units)";
  EXPECT_EQ(notes, std::vector<std::string>{reason});
  EXPECT_EQ(refused.meta_text("significance"), reason);
  EXPECT_FALSE(refused.has_meta("bootstrap"));
  EXPECT_GE(refused.column("delta"), 0);
  for (const auto* column : {"delta_low", "delta_high", "p_value", "p_adjusted", "significant"})
    EXPECT_EQ(refused.column(column), -1) << column;

  request.settings.set("min-units", std::to_string(units));
  notes.clear();
  const auto tested = analysis("ablate")(request).tables.at("csv");
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(tested.has_meta("significance"));
  EXPECT_EQ(tested.meta_text("unit"), "paragraphs");
  EXPECT_EQ(tested.meta_number("units"), static_cast<double>(units));
  EXPECT_GE(tested.column("significant"), 0);
  // Every interval holds the delta printed beside it.
  for (int64_t row = 0; row < tested.row_count(); ++row) {
    const double delta = tested.number(row, tested.column("delta"));
    EXPECT_LE(tested.number(row, tested.column("delta_low")), delta) << "row " << row;
    EXPECT_GE(tested.number(row, tested.column("delta_high")), delta) << "row " << row;
  }
}

TEST_F(DescriptorRun, AccuracyDeltasCountDamageDownwards) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  AnalysisRequest request;
  request.models = {&lama};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("labelled.tsv"));
  const auto report = analysis("ablate")(request);
  ASSERT_TRUE(report.head_scores.has_value());
  EXPECT_EQ(report.head_scores->damage_sign, -1);
  EXPECT_EQ(report.head_scores->damage()[0][1], -report.head_scores->values[0][1]);
}

// Michel Figure 2: the same heads' effects on a second file, with both correlations.
TEST_F(DescriptorRun, AblationComparedAcrossTwoFilesCarriesBothDeltasAndTheirCorrelations) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("compare-text", dir_.file("other.txt"));
  request.settings.set("window", "8");
  request.settings.set("bootstrap", "0");
  std::vector<std::string> notes;
  request.note = [&notes](const std::string& note) { notes.push_back(note); };
  const auto report = analysis("ablate")(request);
  const auto& table = report.tables.at("csv");

  auto windows = [&](const std::string& file) {
    return language_model_data(make_window_batches(read_token_corpus(dir_.file(file), *lm.tokenizer), 8, 8));
  };
  const auto first = ablate_heads(*lm.model, lm.name, windows("corpus.txt"), AblationMode::Single);
  const auto second = ablate_heads(*lm.model, lm.name, windows("other.txt"), AblationMode::Single);
  std::vector<double> x, y;
  ASSERT_EQ(table.row_count(), 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_DOUBLE_EQ(table.number(i, table.column("delta")), first.heads[i].delta);
    EXPECT_DOUBLE_EQ(table.number(i, table.column("delta_compared")), second.heads[i].delta);
    EXPECT_DOUBLE_EQ(table.number(i, table.column("metric_compared")), second.heads[i].metric);
    x.push_back(first.heads[i].delta);
    y.push_back(second.heads[i].delta);
  }
  EXPECT_DOUBLE_EQ(table.meta_number("compare_baseline"), second.baseline);
  EXPECT_DOUBLE_EQ(table.meta_number("pearson_r"), pearson_r(x, y));
  EXPECT_DOUBLE_EQ(table.meta_number("spearman_rho"), spearman_rho(x, y));
  const auto& csv = write_csv(report.tables.at("csv"));
  EXPECT_NE(csv.find(", text=" + dir_.file("corpus.txt") + ", compare_text=" + dir_.file("other.txt") + ", compare_baseline="),
            std::string::npos) << csv;
  EXPECT_NE(csv.find("\nlayer,head,metric,delta,metric_compared,delta_compared\n"), std::string::npos) << csv;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("across the two files: Pearson r = ", 0), 0u) << notes[0];

  request.settings.set("mode", "all-but-one");
  EXPECT_EQ(setting_error_of([&] { analysis("ablate")(request); }),
            "--compare-text compares single-head effects; it needs --mode single");
}

}  // namespace
}  // namespace aw
