// tests/test_descriptors.cpp — the analysis contract: settings validated with the exact messages
// both front ends show, the registry's descriptors well formed, the model check, and a descriptor
// run giving what the analysis function it wraps gives (CSV and typed head scores).
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/heads/pruning_study.h"
#include "table/csv_format.h"
#include "analysis/heads/checkpoint_series.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/core/labelled_parts.h"
#include "analysis/core/registry.h"
#include "analysis/statistics/significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/text/corpus.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

namespace aw {
namespace {

std::string setting_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const SettingError& error) {
    return error.what();
  }
  return "(no SettingError)";
}

const AnalysisDescriptor& analysis(const std::string& name) {
  const auto* descriptor = find_analysis(name);
  if (!descriptor) throw std::runtime_error("no analysis " + name);
  return *descriptor;
}

TEST(SettingValues, DefaultsComeFromTheFields) {
  auto settings = analysis("ablate").settings();
  EXPECT_EQ(settings.choice("mode"), "single");
  EXPECT_EQ(settings.integer("batch"), 8);
  EXPECT_FALSE(settings.flag("all"));
  EXPECT_FALSE(settings.given("window"));
  settings.set("batch", "3");
  settings.set_flag("all", true);
  EXPECT_EQ(settings.integer("batch"), 3);
  EXPECT_TRUE(settings.flag("all"));
}

TEST(SettingValues, BadValuesNameTheFieldAndTheValue) {
  auto settings = analysis("ablate").settings();
  settings.set("text", "corpus.txt");
  settings.set("window", "ten");
  EXPECT_EQ(setting_error_of([&] { settings.integer("window"); }), "--window expects an integer, got 'ten'");
  settings.set("window", "1");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--window must be at least 2, got 1");
  settings.erase("window");
  settings.set("mode", "double");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--mode must be single or all-but-one, got 'double'");
  auto prune = analysis("prune").settings();
  prune.set("text", "corpus.txt");
  prune.set("order", "random");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--order must be importance, oracle or both, got 'random'");
  prune.erase("order");
  prune.set("step", "101");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--step must be at most 100, got 101");
}

TEST(SettingValues, UnknownAndMissingSettingsAreRefused) {
  auto settings = analysis("importance").settings();
  settings.set("windwo", "8");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--windwo is not a setting of this analysis");
  settings.erase("windwo");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--text is required");
}

TEST(SettingValues, ListsSkipEmptyItems) {
  auto settings = analysis("word-weights").settings();
  settings.set("words", "good,,bad,");
  EXPECT_EQ(settings.list("words"), (std::vector<std::string>{"good", "bad"}));
}

TEST(Registry, ListsEveryAnalysisOnceWithWellFormedFields) {
  std::set<std::string> names;
  for (const auto& descriptor : analysis_registry()) {
    EXPECT_TRUE(names.insert(descriptor.name).second) << descriptor.name;
    EXPECT_FALSE(descriptor.summary.empty()) << descriptor.name;
    EXPECT_TRUE(descriptor.run) << descriptor.name;
    std::set<std::string> fields;
    for (const auto& field : descriptor.fields) {
      EXPECT_TRUE(fields.insert(field.name).second) << descriptor.name << " --" << field.name;
      EXPECT_TRUE(std::regex_match(field.name, std::regex("[a-z][a-z0-9-]*"))) << field.name;
      EXPECT_FALSE(field.label.empty()) << descriptor.name << " --" << field.name;
      // A default must pass its own field's checks.
      auto settings = descriptor.settings();
      if (!field.default_text.empty() && field.kind == FieldKind::Integer) EXPECT_NO_THROW(settings.integer(field.name));
      if (!field.default_text.empty() && field.kind == FieldKind::Choice) EXPECT_NO_THROW(settings.choice(field.name));
    }
    for (const auto& output : descriptor.outputs) EXPECT_FALSE(fields.count(output.option)) << output.option;
  }
  EXPECT_EQ(names, (std::set<std::string>{"eval", "stats", "top-tokens", "diag-sweep", "ablate", "importance", "prune",
                                          "word-weights", "keywords", "training"}));
}

class DescriptorRun : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_checkpoint(dir_.file("lm"), test::tiny_config("transformer_lm"));
    test::write_tiny_checkpoint(dir_.file("lama"), test::tiny_lama_config());
    std::string corpus;
    for (int i = 0; i < 40; ++i) corpus += "w" + std::to_string(2 + i % 15) + (i % 9 == 8 ? "\n" : " ");
    test::write_file(dir_.file("corpus.txt"), corpus);
    std::string other;
    for (int i = 0; i < 48; ++i) other += "w" + std::to_string(2 + (i * 7) % 16) + (i % 11 == 10 ? "\n" : " ");
    test::write_file(dir_.file("other.txt"), other);
    test::write_file(dir_.file("labelled.tsv"), "1\tw2 w3 w4\n2\tw5 w6\n3\tw7 w8 w9 w2\n1\tw3 w3\n");
  }
  test::TempDir dir_;
};

TEST_F(DescriptorRun, AblationEqualsTheFunctionItWraps) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  const auto report = analysis("ablate")(request);

  // The windows built by hand, not through the descriptor's data reading.
  const auto data = language_model_data(make_window_batches(read_token_corpus(dir_.file("corpus.txt"), *lm.tokenizer), 8, 8));
  SignificanceOptions bootstrap;  // the descriptor's defaults: 1000 resamples, seed 1, Holm
  bootstrap.resamples = 1000;
  const auto direct = ablate_heads(*lm.model, lm.name, data, AblationMode::Single, {}, {}, {}, bootstrap);
  EXPECT_EQ(write_csv(report.tables.at("csv")), write_csv(ablation_table(direct)));
  ASSERT_TRUE(report.head_scores.has_value());
  EXPECT_EQ(report.head_scores->damage_sign, 1);  // perplexity going up is damage
  ASSERT_EQ(report.head_scores->values.size(), 2u);
  EXPECT_DOUBLE_EQ(report.head_scores->values[1][2], direct.heads[5].delta);
}

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
}

// Hand-worked: base 100 (perplexity), 10 % allowed → up to 110; the curve crosses at 50 %, and a later
// point back under the limit does not count. For accuracy the limit is below: 0.8 × 0.9 = 0.72.
TEST(PrunableShares, StopAtTheFirstPointBeyondTheTolerance) {
  auto point = [](const std::string& order, double percent, int64_t heads, double metric) {
    PruningPoint p;
    p.order = order, p.percent = percent, p.heads_pruned = heads, p.metric = metric;
    return p;
  };
  const std::vector<PruningPoint> curves = {point("importance", 0, 0, 100), point("importance", 25, 2, 104),
                                            point("importance", 50, 4, 111), point("importance", 75, 6, 109),
                                            point("oracle", 0, 0, 100),     point("oracle", 25, 2, 110),
                                            point("oracle", 50, 4, 110)};
  const auto shares = prunable_shares(curves, "perplexity", 10.0);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].order, "importance");
  EXPECT_EQ(shares[0].percent, 25.0);
  EXPECT_EQ(shares[0].heads, 2);
  EXPECT_EQ(shares[0].metric, 104.0);
  EXPECT_EQ(shares[1].percent, 50.0);  // exactly at the limit is within it
  const std::vector<PruningPoint> accuracy = {point("importance", 0, 0, 0.8), point("importance", 50, 4, 0.73),
                                              point("importance", 100, 8, 0.71)};
  const auto accuracy_shares = prunable_shares(accuracy, "accuracy", 10.0);
  EXPECT_EQ(accuracy_shares[0].percent, 50.0);
  EXPECT_EQ(prunable_shares({point("importance", 0, 0, 0.8), point("importance", 50, 4, NAN)}, "accuracy", 10.0)[0].heads,
            0);
}

TEST(CheckpointSeries, EpochFoldersInNumericOrderAndClearErrors) {
  test::TempDir dir;
  auto write_epoch = [&](const std::string& name, int epoch) {
    std::filesystem::create_directories(dir.file(name));
    test::write_file(dir.file(name + "/training.json"),
                     "{\"history\": {\"metric\": \"accuracy\", \"steps\": [], \"epochs\": [{\"epoch\": " +
                         std::to_string(epoch) + ", \"step\": " + std::to_string(3 * epoch) +
                         ", \"train_loss\": 1.0, \"valid_loss\": 0.5, \"valid_accuracy\": 0.7}]}}");
  };
  try {
    checkpoint_series(dir.path());
    ADD_FAILURE() << "an empty folder is no series";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.path() + ": has no epoch-N checkpoint folders (train with --keep-epochs to keep one per epoch)");
  }
  write_epoch("epoch-10", 10);
  write_epoch("epoch-2", 2);
  write_epoch("epoch-x", 1);  // not an epoch folder: ignored
  test::write_file(dir.file("epoch-3"), "a file, not a folder");
  const auto series = checkpoint_series(dir.path());
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].epoch, 2);
  EXPECT_EQ(series[0].step, 6);
  EXPECT_EQ(series[1].epoch, 10);
  ResultTable joined, a, b;
  joined.meta("model", "m");
  for (auto* table : {&a, &b}) table->meta("ignored", 1).add_column("layer", ColumnType::Integer).add_column("v", ColumnType::Number);
  a.row(1, 0.5);
  b.row(1, 0.25);
  b.row(2, 1.0);
  EXPECT_EQ(write_csv(series_table(joined, series, {a, b})),
            "# model=m\nepoch,step,layer,v\n2,6,1,0.5\n10,30,1,0.25\n10,30,2,1\n");
  write_epoch("epoch-4", 5);
  try {
    checkpoint_series(dir.path());
    ADD_FAILURE() << "a history that disagrees with the folder's name";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.file("epoch-4") + "/training.json: its history does not end at epoch 4 as the folder's name says");
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

TEST_F(DescriptorRun, ImportanceScoresAreTheResultsScores) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("importance").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("heads-off", "1.2");
  const auto report = analysis("importance")(request);
  // The windows built by hand, not through the descriptor's data reading; the gates too.
  const auto data = language_model_data(make_window_batches(read_token_corpus(dir_.file("corpus.txt"), *lm.tokenizer), 8, 8));
  const auto direct = head_importance(*lm.model, lm.name, data, true, gates_from_flags(lm.config, {{true, false, true}}));
  EXPECT_EQ(report.head_scores->values, direct.scores);
  auto expected = importance_table(direct);
  expected.meta("heads_off", "1.2");  // every table says which heads were off
  EXPECT_EQ(write_csv(report.tables.at("csv")), write_csv(expected));
}

TEST_F(DescriptorRun, TheModelCheckHasOneMessage) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  AnalysisRequest request;
  request.models = {&lama};
  request.settings = analysis("stats").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  try {
    analysis("stats")(request);
    FAIL() << "stats ran on a LAMA model";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir_.file("lama") +
                  ": stats needs a causal language model or a translation model; this checkpoint is a lama classifier");
  }
}

TEST_F(DescriptorRun, WindowIsRefusedForAClassifierAndCheckedForALanguageModel) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.settings = analysis("eval").settings();
  request.settings.set("text", dir_.file("labelled.tsv"));
  request.settings.set("window", "8");
  request.models = {&lama};
  EXPECT_EQ(setting_error_of([&] { analysis("eval")(request); }),
            "--window applies to language models; lama is a lama classifier and reads each example whole (up to its "
            "16 positions)");
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "17");
  request.models = {&lm};
  EXPECT_EQ(setting_error_of([&] { analysis("eval")(request); }), "--window 17 exceeds the model's 16 positions");
}

TEST_F(DescriptorRun, ProgressCancelsARun) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("stats").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "4");
  request.settings.set("batch", "1");
  std::vector<std::string> phases;
  request.progress = [&phases](int64_t done, int64_t, const std::string& phase) {
    phases.push_back(phase);
    return done < 2;
  };
  EXPECT_TRUE(analysis("stats")(request).cancelled);
  EXPECT_EQ(phases.front(), "lm: batches");
}

TEST(LabelledParts, PartsOfTheDefaultSplitCoverTheFileOnce) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 20; ++i) text += std::to_string(1 + i % 2) + "\tdoc" + std::to_string(i) + "\n";
  test::write_file(dir.file("data.tsv"), text);
  const std::vector<std::string> labels{"1", "2"};
  std::multiset<std::string> seen;
  for (auto part : {LabelledPart::Train, LabelledPart::Valid, LabelledPart::Test})
    for (const auto& example : read_labelled_part(dir.file("data.tsv"), labels, part, 3)) seen.insert(example.text_a);
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 20u);
  std::string described;
  EXPECT_EQ(read_labelled_part(dir.file("data.tsv"), labels, LabelledPart::Test, 3, &described).size(), 2u);
  EXPECT_EQ(described, dir.file("data.tsv") + " (test part of the seed-3 80/10/10 split)");
  EXPECT_EQ(parse_labelled_part("valid"), LabelledPart::Valid);
  EXPECT_THROW(parse_labelled_part("dev"), Error);
}

// --heads-off as written, as the window formats it, and checked against a model.
TEST(GateSettings, ParseFormatAndResolveAgainstTheModel) {
  const auto groups = parse_heads_off(" 2.3, 1.1 ;none;cross1.2");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(heads_off_group_text(groups[0]), "2.3,1.1");
  EXPECT_TRUE(groups[1].empty());
  EXPECT_EQ(groups[2][0].kind, "cross");
  EXPECT_EQ(heads_off_text(groups), "2.3,1.1;none;cross1.2");
  EXPECT_EQ(heads_off_text(parse_heads_off("none")), "");  // every head on: nothing to record
  EXPECT_EQ(parse_heads_off("").size(), 1u);
  EXPECT_EQ(setting_error_of([] { parse_heads_off("2.0"); }),
            "--heads-off expects LAYER.HEAD entries counted from 1 (2.3; enc2.3, dec1.2 or cross1.4 for a translation "
            "model), got '2.0'");
  EXPECT_EQ(setting_error_of([] { parse_heads_off("2,3"); }).substr(0, 30), "--heads-off expects LAYER.HEAD");

  const auto config = test::tiny_config("transformer_lm");  // 2 layers × 3 heads
  const std::vector<const ModelConfig*> one{&config};
  const auto resolved = resolve_heads_off(parse_heads_off("2.3,1.1"), one, {"lm"});
  ASSERT_EQ(resolved.size(), 1u);
  ASSERT_EQ(resolved[0].size(), 2u);
  EXPECT_EQ(resolved[0][0].layer, 1);
  EXPECT_EQ(resolved[0][0].head, 2);
  EXPECT_EQ(heads_off_group_text(heads_off_group(resolved[0], config)), "2.3,1.1");
  EXPECT_EQ(setting_error_of([&] { resolve_heads_off(parse_heads_off("1.4"), one, {"lm"}); }),
            "--heads-off 1.4: layer 1 of lm has 3 heads");
  EXPECT_EQ(setting_error_of([&] { resolve_heads_off(parse_heads_off("1.1;1.1"), one, {"lm"}); }),
            "--heads-off has 2 groups for 1 model: give one per --model, separated by ';' (none: every head on)");
  const std::vector<const ModelConfig*> two{&config, &config};
  EXPECT_EQ(resolve_heads_off(parse_heads_off("none"), two, {"a", "b"}).size(), 2u);  // all on for any number
  EXPECT_EQ(resolve_heads_off(parse_heads_off("none;2.2"), two, {"a", "b"})[1][0].head, 1);
}

}  // namespace
}  // namespace aw
