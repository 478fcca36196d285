// tests/analysis/patching/test_head_patching.cpp — activation patching on tiny native models: what must
// hold whatever the weights (a run patched with its own contexts or pattern is itself; a clean prompt
// patched into itself changes nothing; pairs of different lengths batched equal each alone; a head
// switched off attributes nothing and restores nothing), the descriptor's table against the result it
// summarises, and every bad input as its one line (analysis/patching/).
#include "analysis/patching/head_patching.h"
#include "analysis/patching/patch_pairs.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::error_of;
using test::setting_error_of;
using test::TempDir;
using test::tiny_config;
using test::write_file;
using test::write_tiny_checkpoint;

std::vector<PatchPair> tiny_pairs() {
  return {{{2, 3, 4, 5, 6, 7}, {2, 3, 9, 5, 6, 7}, 4, 9, 1},
          {{8, 3, 4}, {8, 10, 4}, 3, 10, 2},
          {{5, 5, 6, 7, 2}, {5, 11, 6, 7, 2}, 5, 11, 3}};
}

class Patching : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    write_tiny_checkpoint(dir_.file("model"), tiny_config(GetParam()));
    loaded_ = load_checkpoint(dir_.file("model"));
  }
  TempDir dir_;
  LoadedModel loaded_;
};

// The pairs batched (padded to 6 tokens) equal each pair alone, and a pair whose corrupted prompt is its
// clean one restores nothing and loses nothing whichever head is patched, by output or by pattern.
TEST_P(Patching, BatchedEqualsAloneAndSelfPatchingIsTheIdentity) {
  const auto pairs = tiny_pairs();
  for (const auto kind : {PatchKind::Output, PatchKind::Pattern}) {
    PatchSettings settings;
    settings.kind = kind;
    const auto batched = patch_heads(*loaded_.model, pairs, settings);
    for (size_t p = 0; p < pairs.size(); ++p) {
      const auto alone = patch_heads(*loaded_.model, {pairs[p]}, settings);
      const auto at = static_cast<int64_t>(p);
      EXPECT_NEAR(batched.clean[at].item<double>(), alone.clean[0].item<double>(), 1e-5);
      EXPECT_TRUE(torch::allclose(batched.patched.select(2, at), alone.patched.select(2, 0), 1e-5, 1e-5));
      EXPECT_TRUE(torch::allclose(batched.dla.select(2, at), alone.dla.select(2, 0), 1e-5, 1e-5));
    }
    auto same = pairs;
    for (auto& pair : same) pair.corrupted = pair.clean;
    const auto self = patch_heads(*loaded_.model, same, settings);
    EXPECT_TRUE(torch::allclose(self.clean, self.corrupted, 1e-6, 1e-6));
    const auto expected = self.corrupted.view({1, 1, -1}).expand_as(self.patched);
    EXPECT_TRUE(torch::allclose(self.patched, expected, 1e-5, 1e-5)) << GetParam();
  }
}

// A head switched off writes nothing (DLA 0) and, patched, changes nothing: its output is gated away.
TEST_P(Patching, AHeadSwitchedOffAttributesAndRestoresNothing) {
  PatchSettings settings;
  settings.gates = torch::ones({loaded_.config.n_blocks, loaded_.config.max_heads()});
  settings.gates[1][2] = 0;
  const auto result = patch_heads(*loaded_.model, tiny_pairs(), settings);
  EXPECT_TRUE(torch::allclose(result.dla[1][2], torch::zeros({3}, torch::kFloat64)));
  EXPECT_TRUE(torch::allclose(result.patched[1][2], result.corrupted, 1e-5, 1e-5));
  EXPECT_FALSE(torch::allclose(result.patched[1][1], result.corrupted, 1e-5, 1e-5));  // its neighbour does
}

TEST_P(Patching, APositionPastAPromptIsRefused) {
  PatchSettings settings;
  settings.position = 3;
  EXPECT_EQ(error_of([&] { patch_heads(*loaded_.model, tiny_pairs(), settings); }),
            "line 2: position 3 is past the prompt's 3 tokens");
}

INSTANTIATE_TEST_SUITE_P(Families, Patching, ::testing::Values("transformer_lm", "bet_sf"));

// The table: each head's effect is Σ(patched − corrupted) / Σ(clean − corrupted), its DLA the mean;
// with too few pairs no interval, and the reason told once.
TEST_F(DescriptorRun, PatchTableSummarisesTheResult) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  write_file(dir_.file("pairs.tsv"), "w2 w3 w4 w5\tw2 w3 w9 w5\tw4\tw9\n\nw8 w3 w4\tw8 w10 w4\tw3\tw10\n");
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("patch").settings();
  request.settings.set("pairs", dir_.file("pairs.tsv"));
  std::vector<std::string> notes;
  request.note = [&notes](const std::string& note) { notes.push_back(note); };
  const auto report = analysis("patch")(request);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "no intervals or p-values: 2 pairs are fewer than the 20 independent units the bootstrap needs "
                      "(--min-units)");
  const auto& table = report.tables.at("csv");
  EXPECT_EQ(table.row_count(), 6);
  EXPECT_EQ(table.column("effect_low"), -1);
  const auto pairs = read_patch_pairs(dir_.file("pairs.tsv"), *lm.tokenizer, 16);
  const auto result = patch_heads(*lm.model, pairs, {});
  const double restored = (result.clean - result.corrupted).sum().item<double>();
  const double effect = (result.patched[1][0] - result.corrupted).sum().item<double>() / restored;
  EXPECT_NEAR(table.number(3, table.column("effect")), effect, 1e-9);
  EXPECT_NEAR(table.number(3, table.column("dla")), result.dla[1][0].mean().item<double>(), 1e-9);
  EXPECT_DOUBLE_EQ(report.head_scores->values[1][0], table.number(3, table.column("effect")));

  // With the bootstrap allowed: intervals around each effect, Holm-adjusted p-values.
  request.settings.set("min-units", "2");
  const auto resampled = analysis("patch")(request).tables.at("csv");
  for (int row = 0; row < resampled.row_count(); ++row) {
    EXPECT_LE(resampled.number(row, resampled.column("effect_low")), resampled.number(row, resampled.column("effect")));
    EXPECT_GE(resampled.number(row, resampled.column("effect_high")), resampled.number(row, resampled.column("effect")));
    EXPECT_GE(resampled.number(row, resampled.column("p_adjusted")), resampled.number(row, resampled.column("p_value")));
  }
}

// Pairs whose clean and corrupted runs do not differ reliably (ten swapped both ways, and one more):
// each effect would be a ratio to noise, so none is given; the DLA still is, and colours the panel.
TEST_F(DescriptorRun, PatchRefusesEffectsOfPairsThatDoNotDiffer) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  std::string lines;
  for (int i = 0; i < 10; ++i) lines += "w2 w3 w4\tw2 w9 w4\tw5\tw6\nw2 w9 w4\tw2 w3 w4\tw5\tw6\n";
  lines += "w7 w3 w4\tw7 w3 w8\tw5\tw6\n";
  write_file(dir_.file("pairs.tsv"), lines);
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("patch").settings();
  request.settings.set("pairs", dir_.file("pairs.tsv"));
  std::vector<std::string> notes;
  request.note = [&notes](const std::string& note) { notes.push_back(note); };
  const auto report = analysis("patch")(request);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("no effects: the mean logit difference clean - corrupted is ", 0), 0u) << notes[0];
  EXPECT_NE(notes[0].find("holds 0 so each effect would be a ratio to noise (the DLA stands)"), std::string::npos);
  const auto& table = report.tables.at("csv");
  EXPECT_EQ(table.meta_text("effect"), notes[0]);
  EXPECT_TRUE(std::isnan(table.number(0, table.column("effect"))));
  EXPECT_EQ(table.column("effect_low"), -1);
  EXPECT_FALSE(std::isnan(table.number(0, table.column("dla"))));
  EXPECT_GE(table.column("dla_low"), 0);
  EXPECT_EQ(report.head_scores->label, "DLA");
}

TEST_F(DescriptorRun, PatchRefusesBadPairsAndSettings) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  const auto lama = load_checkpoint(dir_.file("lama"));
  auto run = [&](const LoadedModel& model, const std::string& lines, const std::string& name = {},
                 const std::string& value = {}) {
    write_file(dir_.file("pairs.tsv"), lines);
    AnalysisRequest request;
    request.models = {&model};
    request.settings = analysis("patch").settings();
    request.settings.set("pairs", dir_.file("pairs.tsv"));
    if (!name.empty()) request.settings.set(name, value);
    analysis("patch")(request);
  };
  const auto file = dir_.file("pairs.tsv");
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3\tw2 w4\tw3\n"); }),
            file + ":1: expected clean<TAB>corrupted<TAB>answer<TAB>foil, got 3 fields");
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3\tw2 w4\tw3\tw4\nw2 w3\tw2 w4\tw3 w5\tw4\n"); }),
            file + ":2: the answer 'w3 w5' is 2 tokens ('w3', 'w5'): patching needs one");
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3\tw2 w4\tw3\t\n"); }), file + ":1: the foil '' is 0 tokens: patching needs one");
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3 w5\tw2 w4\tw3\tw4\n"); }),
            file + ":1: the clean prompt is 3 tokens and the corrupted 2: patching needs prompts of one length");
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3\tw2 w4\tw3\tw3\n"); }),
            file + ":1: the answer and the foil are the same token ('w3')");
  EXPECT_EQ(error_of([&] { run(lm, "\n\n"); }), file + ": holds no clean<TAB>corrupted<TAB>answer<TAB>foil line");
  // Prompts that do not differ: nothing to restore (the message gives their logit difference).
  write_file(file, "w2 w3\tw2 w3\tw3\tw4\n");
  const auto same = patch_heads(*lm.model, read_patch_pairs(file, *lm.tokenizer, 16), {}).clean[0].item<double>();
  EXPECT_EQ(error_of([&] { run(lm, "w2 w3\tw2 w3\tw3\tw4\n"); }),
            file + ": the clean and corrupted prompts give the same mean logit difference (" + std::to_string(same) +
                "): there is no effect to restore");
  write_file(file, "w2 w3\tw2 w4\tw3\tw4\n");
  AnalysisRequest both;
  both.models = {&lm};
  both.settings = analysis("patch").settings();
  both.settings.set("pairs", file);
  both.settings.set("kind", "pattern");
  both.settings.set("position", "1");
  EXPECT_EQ(setting_error_of([&] { analysis("patch")(both); }),
            "--position applies to output patching (--kind output): a pattern is patched whole");
  EXPECT_EQ(error_of([&] { run(lama, "w2 w3\tw2 w4\tw3\tw4\n"); }),
            dir_.file("lama") + ": patch needs a language model; this checkpoint is a lama classifier");
}

// A tokenizer that puts <s> before every text (Llama 2's): the answer and foil are read without it,
// and the prompts keep it, as the model was trained to see them.
TEST(PatchPairs, AnswersAreReadWithoutTheTokensAddedToEveryText) {
  TempDir dir;
  const auto lm = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/llama_bias");
  const auto bos = lm.tokenizer->token_id("<s>");
  ASSERT_EQ(lm.tokenizer->encode("in").ids.front(), bos);
  write_file(dir.file("pairs.tsv"), "the in the it\tthe it the it\tin\tit\n");
  const auto pairs = read_patch_pairs(dir.file("pairs.tsv"), *lm.tokenizer, 64);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].answer, lm.tokenizer->token_id("▁in"));
  EXPECT_EQ(pairs[0].foil, lm.tokenizer->token_id("▁it"));
  EXPECT_EQ(pairs[0].clean.front(), bos);
}

}  // namespace
}  // namespace aw
