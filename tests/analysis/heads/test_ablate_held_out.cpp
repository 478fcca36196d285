// tests/analysis/heads/test_ablate_held_out.cpp — Michel Tables 5–6: each layer's head chosen on a held-out
// file and kept alone on the scored one (keep_chosen_heads, ablate --choose-on), against plain gated
// forwards and the all-but-one ablation of each file; its bootstrap corrected over the chosen heads only.
#include "analysis/heads/head_ablation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/text/corpus.h"
#include "table/csv_format.h"
#include "tests/support/descriptor_run.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::setting_error_of;

// Heads that are not each layer's best: the kept head's metric is the model's with only it on in its
// layer, whichever head was chosen.
TEST(KeepChosenHeads, EachChosenHeadAloneIsThePlainGatedForward) {
  test::TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = test::tiny_batches();
  const auto data = language_model_data(batches);
  const auto alone = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne);
  std::vector<HeadEffect> chosen;
  for (const auto& best : alone.best_per_layer) {
    HeadEffect other;
    other.layer = best.layer;
    other.head = best.head % 3 + 1;  // another head than the best
    chosen.push_back(other);
  }
  const auto kept = keep_chosen_heads(*loaded.model, "m", data, chosen, "held.txt");
  EXPECT_NEAR(kept.baseline, alone.baseline, 1e-9 * alone.baseline);
  ASSERT_EQ(kept.best_per_layer.size(), 2u);
  for (size_t i = 0; i < chosen.size(); ++i) {
    const auto& effect = kept.best_per_layer[i];
    EXPECT_EQ(effect.layer, chosen[i].layer);
    EXPECT_EQ(effect.head, chosen[i].head);
    auto gates = all_heads_on(loaded.config);
    gates[effect.layer - 1].zero_();
    gates[effect.layer - 1][effect.head - 1] = 1.0;
    const double expected = test::metric_with_gates(*loaded.model, batches, gates);
    EXPECT_NEAR(effect.metric, expected, 1e-4 * expected) << effect.layer;
    EXPECT_NEAR(effect.delta, effect.metric - kept.baseline, 1e-9);
    // Not the best on this text: it does worse here than the head chosen on it.
    EXPECT_GT(effect.metric, alone.best_per_layer[i].metric);
  }
  const auto csv = write_csv(ablation_table(kept));
  EXPECT_NE(csv.find("mode=all-but-one, chosen_on=held.txt\nlayer,best_head,metric,delta\n1," +
                     std::to_string(chosen[0].head) + ","),
            std::string::npos)
      << csv;

  HeadEffect missing;
  missing.layer = 1;
  missing.head = 9;
  try {
    keep_chosen_heads(*loaded.model, "m", data, {missing}, "held.txt");
    FAIL() << "no error for a head the model lacks";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "no head 9 in block 1 of m to keep");
  }
}

TEST(KeepChosenHeads, TranslationBlocksKeepTheirKindAndLayer) {
  test::TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const auto data = tiny.data(loaded, 6);
  const auto alone = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne);
  const auto kept = keep_chosen_heads(*loaded.model, "m", data, alone.best_per_layer, "valid.tsv");
  ASSERT_EQ(kept.best_per_layer.size(), alone.best_per_layer.size());
  for (size_t i = 0; i < kept.best_per_layer.size(); ++i)
    EXPECT_NEAR(kept.best_per_layer[i].metric, alone.best_per_layer[i].metric, 1e-6 * alone.baseline);
  const auto csv = write_csv(ablation_table(kept));
  EXPECT_NE(csv.find("kind,layer,best_head,metric,delta\nenc,1,"), std::string::npos) << csv;
}

// ablate --mode all-but-one on corpus.txt, the heads chosen on other.txt, windows of 8.
AnalysisRequest held_out_request(const LoadedModel& lm, const test::TempDir& dir) {
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("mode", "all-but-one");
  request.settings.set("text", dir.file("corpus.txt"));
  request.settings.set("choose-on", dir.file("other.txt"));
  request.settings.set("window", "8");
  return request;
}

// The descriptor chooses on --choose-on (read as --text is) and scores on --text: each row is the head
// the held-out file's all-but-one ablation picks, with --text's all-but-one metric for that head.
TEST_F(DescriptorRun, ChooseOnPicksHeadsOnTheHeldOutFileAndScoresThemOnTheText) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  auto request = held_out_request(lm, dir_);
  request.settings.set("bootstrap", "0");
  std::vector<std::string> notes;
  request.note = [&notes](const std::string& note) { notes.push_back(note); };
  const auto table = analysis("ablate")(request).tables.at("csv");

  auto windows = [&](const std::string& file) {
    return language_model_data(make_window_batches(read_token_corpus(dir_.file(file), *lm.tokenizer), 8, 8));
  };
  const auto held_out = ablate_heads(*lm.model, lm.name, windows("other.txt"), AblationMode::AllButOne);
  const auto scored = ablate_heads(*lm.model, lm.name, windows("corpus.txt"), AblationMode::AllButOne);
  ASSERT_EQ(table.row_count(), 2);
  std::string chosen_line = "heads chosen on " + dir_.file("other.txt") + ": ";
  for (int row = 0; row < 2; ++row) {
    const auto head = held_out.best_per_layer[row].head;
    EXPECT_EQ(table.number(row, table.column("best_head")), head);
    const auto& here = scored.heads[row * 3 + (head - 1)];
    EXPECT_DOUBLE_EQ(table.number(row, table.column("metric")), here.metric);
    EXPECT_DOUBLE_EQ(table.number(row, table.column("delta")), here.delta);
    chosen_line += std::to_string(row + 1) + "." + std::to_string(head) + (row ? "" : ",");  // as --heads-off
  }
  EXPECT_EQ(table.meta_text("chosen_on"), dir_.file("other.txt"));
  EXPECT_EQ(notes, std::vector<std::string>{chosen_line});
}

// With a bootstrap, Holm runs over the chosen heads (one per layer, 2 here), not over every head.
TEST_F(DescriptorRun, ChooseOnCorrectsOverTheChosenHeadsOnly) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  auto request = held_out_request(lm, dir_);
  request.settings.set("bootstrap", "300");
  request.settings.set("min-units", "2");
  const auto table = analysis("ablate")(request).tables.at("csv");
  ASSERT_EQ(table.row_count(), 2);
  std::vector<std::pair<double, double>> p;  // raw, adjusted
  for (int row = 0; row < 2; ++row) {
    const double delta = table.number(row, table.column("delta"));
    EXPECT_LE(table.number(row, table.column("delta_low")), delta);
    EXPECT_GE(table.number(row, table.column("delta_high")), delta);
    p.emplace_back(table.number(row, table.column("p_value")), table.number(row, table.column("p_adjusted")));
  }
  std::sort(p.begin(), p.end());
  EXPECT_DOUBLE_EQ(p[0].second, std::min(1.0, 2 * p[0].first));
  EXPECT_DOUBLE_EQ(p[1].second, std::max(p[0].second, p[1].first));
}

TEST_F(DescriptorRun, ChooseOnRefusesWhatItCannotDo) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("ablate").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("choose-on", dir_.file("other.txt"));
  request.settings.set("window", "8");
  EXPECT_EQ(setting_error_of([&] { analysis("ablate")(request); }),
            "--choose-on chooses the head each layer keeps; it needs --mode all-but-one");
  request.settings.set("mode", "all-but-one");
  request.settings.set("all", "true");
  EXPECT_EQ(setting_error_of([&] { analysis("ablate")(request); }),
            "--choose-on keeps one chosen head per layer; it cannot give every head's row (--all)");
  request.settings = analysis("ablate").settings();
  request.settings.set("mode", "all-but-one");
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("choose-on", dir_.file("missing.txt"));
  try {
    analysis("ablate")(request);
    FAIL() << "no error for a missing held-out file";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find(dir_.file("missing.txt")), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace aw
