// tests/analysis/head_types/test_head_types.cpp — the head-type scores on hand-worked matrices (padding,
// row tiles, layers of different widths), on a real model against plain loops over its captured
// attention, the repeated random sequences, and the descriptor's settings and refusals
// (analysis/head_types/).
#include "analysis/head_types/head_types.h"
#include "analysis/head_types/repeated_tokens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "models/text/tokenizer.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::setting_error_of;
using test::TempDir;
using test::tiny_config;
using test::write_tiny_checkpoint;

constexpr int kPrevious = 0, kDuplicate = 1, kInduction = 2, kSink = 3, kEntropy = 4, kSelf = 5, kLearnedSink = 6;

double entropy_of(const std::vector<double>& row) {
  double sum = 0;
  for (const double p : row)
    if (p > 0) sum -= p * std::log(p);
  return sum;
}

// Two sequences of one head: ids 5 7 5 7, and 7 5 7 <pad> whose padded row holds junk a softmax
// would never leave (it must not count) and whose pad id repeats a token.
struct WorkedCase {
  torch::Tensor probabilities = torch::tensor({{1.0, 0.0, 0.0, 0.0},
                                               {0.5, 0.5, 0.0, 0.0},
                                               {0.2, 0.6, 0.2, 0.0},
                                               {0.1, 0.2, 0.3, 0.4},
                                               {1.0, 0.0, 0.0, 0.0},
                                               {0.3, 0.7, 0.0, 0.0},
                                               {0.5, 0.25, 0.25, 0.0},
                                               {0.25, 0.25, 0.25, 0.25}},
                                              torch::kFloat64)
                                   .view({2, 1, 4, 4});
  torch::Tensor ids = torch::tensor({{5, 7, 5, 7}, {7, 5, 7, 7}}, torch::kLong);
  torch::Tensor valid = torch::tensor({{true, true, true, true}, {true, true, true, false}});
};

// Worked by hand: previous 0.5 + 0.6 + 0.3 (rows 1–3) and 0.3 + 0.25 over 5 rows; duplicate:
// rows (0, 2), (0, 3), (1, 2) have an earlier copy: 0.2 + 0.2 + 0.5 over 3; induction: the weights
// after those copies 0.6 + 0.3 + 0.25 over 3; sink, self and entropy over the 7 valid rows.
std::vector<double> worked_answers() {
  return {(1.4 + 0.55) / 5,
          0.9 / 3,
          1.15 / 3,
          (1.8 + 1.8) / 7,
          (entropy_of({0.5, 0.5}) + entropy_of({0.2, 0.6, 0.2}) + entropy_of({0.1, 0.2, 0.3, 0.4}) +
           entropy_of({0.3, 0.7}) + entropy_of({0.5, 0.25, 0.25})) / 7,
          (2.1 + 1.95) / 7};
}

std::vector<HeadTypeScores> scores_of(const HeadTypeAccumulator& sums, const std::vector<int64_t>& heads) {
  return head_type_scores({sums.sums(), {}}, heads);
}

TEST(HeadTypes, EqualWorkedAnswersOnPaddedSequences) {
  const WorkedCase worked;
  HeadTypeAccumulator sums({1}, torch::kCPU);
  sums.add(0, worked.probabilities, worked.ids, worked.valid);
  const auto scores = scores_of(sums, {1});
  ASSERT_EQ(scores.size(), 1u);
  const auto answers = worked_answers();
  for (int type = 0; type < kLearnedSink; ++type)
    EXPECT_NEAR(scores[0].score[type], answers[type], 1e-12) << head_type_names()[type];
  EXPECT_TRUE(std::isnan(scores[0].score[kLearnedSink]));  // no learned sinks: no rows
  EXPECT_EQ(scores[0].rows[kLearnedSink], 0);
  EXPECT_EQ(scores[0].rows[kPrevious], 5);
  EXPECT_EQ(scores[0].rows[kDuplicate], 3);
  EXPECT_EQ(scores[0].rows[kInduction], 3);
  EXPECT_EQ(scores[0].rows[kSink], 7);
}

// gpt-oss: rows whose weights over the tokens sum to 0.8 leave 0.2 to the learned sink; the sink rate
// counts a head whose learned share exceeds ε although no token draws it.
TEST(HeadTypes, ALearnedSinkTakesWhatTheRowsLeave) {
  const WorkedCase worked;
  HeadTypeAccumulator sums({1}, torch::kCPU, false, /*learned_sinks=*/true);
  sums.add(0, worked.probabilities * 0.8, worked.ids, worked.valid);
  const auto scores = scores_of(sums, {1});
  EXPECT_NEAR(scores[0].score[kLearnedSink], 0.2, 1e-12);
  EXPECT_EQ(scores[0].rows[kLearnedSink], 7);
  EXPECT_NEAR(scores[0].score[kSink], 0.8 * worked_answers()[kSink], 1e-12);
  HeadTypesResult result;
  result.heads = scores;
  result.sink_epsilon = 0.6;  // above α₁ (0.41): a sink only by its learned share…
  result.learned_sinks = true;
  EXPECT_EQ(result.sink_rate(), 0.0);
  result.sink_epsilon = 0.15;
  EXPECT_EQ(result.sink_rate(), 1.0);
  result.sink_epsilon = 0.6;
  result.heads[0].score[kLearnedSink] = 0.7;
  EXPECT_EQ(result.sink_rate(), 1.0);
  const auto table = head_types_table(result);
  ASSERT_GE(table.column("learned_sink"), 0);
  EXPECT_EQ(table.number(0, table.column("learned_sink")), 0.7);
  result.learned_sinks = false;  // another model's table is as it always was
  EXPECT_EQ(head_types_table(result).column("learned_sink"), -1);
}

// Rows fed as tiles (1 + 3 rows), and in float32 as a model hands them: the same sums.
TEST(HeadTypes, RowTilesGiveTheWholeMatrixSums) {
  const WorkedCase worked;
  HeadTypeAccumulator whole({1}, torch::kCPU), tiled({1}, torch::kCPU);
  whole.add(0, worked.probabilities, worked.ids, worked.valid);
  const auto single = worked.probabilities.to(torch::kFloat32);
  tiled.add(0, single.narrow(2, 0, 1), worked.ids, worked.valid, 0);
  tiled.add(0, single.narrow(2, 1, 3), worked.ids, worked.valid, 1);
  EXPECT_TRUE(torch::allclose(whole.sums(), tiled.sums(), 1e-6, 1e-7));
}

// A causal accumulator reads no key past a row's own (a decoder's are 0): the same sums, whole and in
// tiles, as one that reads every key.
TEST(HeadTypes, CausalReadingGivesTheFullReadingsSums) {
  const WorkedCase worked;
  HeadTypeAccumulator full({1}, torch::kCPU), causal({1}, torch::kCPU, true), tiled({1}, torch::kCPU, true);
  full.add(0, worked.probabilities, worked.ids, worked.valid);
  causal.add(0, worked.probabilities, worked.ids, worked.valid);
  tiled.add(0, worked.probabilities.narrow(2, 0, 2), worked.ids, worked.valid, 0);
  tiled.add(0, worked.probabilities.narrow(2, 2, 2), worked.ids, worked.valid, 2);
  EXPECT_TRUE(torch::allclose(full.sums(), causal.sums(), 0, 1e-12));
  EXPECT_TRUE(torch::allclose(full.sums(), tiled.sums(), 0, 1e-12));
}

// What each score reads is kept for the batch in flight only: a second batch of the same shape
// (other tokens) adds its own entries, not the first batch's.
TEST(HeadTypes, ANewBatchReadsItsOwnTokens) {
  const WorkedCase worked;
  const auto other_ids = torch::tensor({{5, 5, 5, 5}, {7, 7, 5, 7}}, torch::kLong);
  HeadTypeAccumulator both({1}, torch::kCPU), first({1}, torch::kCPU), second({1}, torch::kCPU);
  both.add(0, worked.probabilities, worked.ids, worked.valid);
  both.add(0, worked.probabilities, other_ids, worked.valid);
  first.add(0, worked.probabilities, worked.ids, worked.valid);
  second.add(0, worked.probabilities, other_ids, worked.valid);
  EXPECT_TRUE(torch::allclose(both.sums(), first.sums() + second.sums(), 0, 1e-12));
  EXPECT_FALSE(torch::allclose(first.sums(), second.sums()));  // the tokens do change the sums
}

// The second layer's two heads land in their own cells; the first layer's missing second head has no
// score; a sequence whose first token is padding (left padding) reads its sink on the first token.
TEST(HeadTypes, LayersOfDifferentWidthsAndLeftPadding) {
  HeadTypeAccumulator sums({1, 2}, torch::kCPU);
  const auto ids = torch::tensor({{0, 3, 4}}, torch::kLong);
  const auto valid = torch::tensor({{false, true, true}});
  // Two heads; row 0 is padding (junk), rows 1–2 see keys 1–2.
  const auto probabilities = torch::tensor({{{0.3, 0.3, 0.4}, {0.0, 1.0, 0.0}, {0.0, 0.25, 0.75}},
                                            {{0.3, 0.3, 0.4}, {0.0, 1.0, 0.0}, {0.0, 0.9, 0.1}}},
                                           torch::kFloat64)
                                 .unsqueeze(0);
  sums.add(1, probabilities, ids, valid);
  const auto scores = scores_of(sums, {1, 2});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_TRUE(std::isnan(scores[0].score[kSink]));  // layer 1 was never fed
  EXPECT_EQ(scores[1].layer, 2);
  EXPECT_EQ(scores[2].head, 2);
  EXPECT_NEAR(scores[1].score[kSink], (1.0 + 0.25) / 2, 1e-12);  // the first valid token is position 1
  EXPECT_NEAR(scores[2].score[kSink], (1.0 + 0.9) / 2, 1e-12);
  EXPECT_NEAR(scores[2].score[kPrevious], 0.9, 1e-12);  // row 1's previous key is padding: only row 2
  EXPECT_EQ(scores[2].rows[kPrevious], 1);
  EXPECT_TRUE(std::isnan(scores[2].score[kDuplicate]));  // no token repeats
  EXPECT_EQ(scores[2].rows[kDuplicate], 0);
}

// A model's scores: head_type_sums over padded batches equals plain loops over its captured matrices.
TEST(HeadTypes, ModelScoresEqualLoopsOverItsAttention) {
  TempDir dir;
  write_tiny_checkpoint(dir.file("lm"), tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(dir.file("lm"));
  // Windows of 16 and 7 tokens (the second padded) over a period of 11: tokens repeat.
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 16 * 3 + 7; ++i) ids.push_back(2 + (i * 5) % 11);
  const auto batches = make_window_batches(ids, 16, 2);
  const auto sums = head_type_sums(*lm.model, batches, {});
  ASSERT_TRUE(sums.defined());
  const auto scores = head_type_scores({sums, {}}, lm.config.heads_per_block);

  const auto& config = lm.config;
  std::vector<std::vector<double>> total(config.n_blocks * config.max_heads(), std::vector<double>(kHeadTypes, 0.0));
  std::vector<double> rows(kHeadTypes, 0.0);
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  for (const auto& batch : batches) {
    const auto result = lm.model->forward(batch, options);
    const auto mask = batch.attention_mask.accessor<int64_t, 2>();
    const auto t = batch.input_ids.accessor<int64_t, 2>();
    for (int64_t b = 0; b < batch.input_ids.size(0); ++b) {
      int64_t n = 0;
      while (n < batch.input_ids.size(1) && mask[b][n]) ++n;
      for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
        const auto a = result.attention[layer].to(torch::kFloat64).contiguous();
        const auto p = a.accessor<double, 4>();
        for (int64_t h = 0; h < a.size(1); ++h) {
          auto& sum = total[layer * config.max_heads() + h];
          for (int64_t i = 0; i < n; ++i) {
            if (i >= 1) sum[kPrevious] += p[b][h][i][i - 1];
            bool earlier = false;
            for (int64_t j = 0; j < i; ++j) earlier = earlier || t[b][j] == t[b][i];
            for (int64_t j = 0; j < i && earlier; ++j)
              if (t[b][j] == t[b][i]) sum[kDuplicate] += p[b][h][i][j];
            for (int64_t j = 1; j <= i && earlier; ++j)
              if (t[b][j - 1] == t[b][i]) sum[kInduction] += p[b][h][i][j];
            sum[kSink] += p[b][h][i][0];
            sum[kSelf] += p[b][h][i][i];
            for (int64_t j = 0; j < n; ++j)
              if (p[b][h][i][j] > 0) sum[kEntropy] -= p[b][h][i][j] * std::log(p[b][h][i][j]);
            if (layer == 0 && h == 0) {
              rows[kPrevious] += i >= 1;
              rows[kDuplicate] += earlier;
              rows[kInduction] += earlier;
              rows[kSink] += 1, rows[kSelf] += 1, rows[kEntropy] += 1;
            }
          }
        }
      }
    }
  }
  ASSERT_GT(rows[kDuplicate], 0);  // the tiny windows repeat tokens
  for (const auto& head : scores)
    for (int type = 0; type < kLearnedSink; ++type) {  // no learned sinks here: that score has no rows
      const double expected = total[(head.layer - 1) * config.max_heads() + head.head - 1][type] / rows[type];
      EXPECT_NEAR(head.score[type], expected, 1e-5) << head.layer << "." << head.head << " " << head_type_names()[type];
      EXPECT_EQ(head.rows[type], static_cast<int64_t>(rows[type]));
    }
}

TEST(RepeatedTokenSequences, RepeatEachSequenceAndAvoidSpecialTokens) {
  TempDir dir;
  write_tiny_checkpoint(dir.file("lm"), tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(dir.file("lm"));
  const auto pool = ordinary_token_ids(*lm.tokenizer);
  const std::set<int64_t> allowed(pool.begin(), pool.end());
  EXPECT_EQ(allowed.count(lm.tokenizer->token_id("<unk>")), 0u);
  EXPECT_EQ(allowed.count(lm.tokenizer->token_id("<eos>")), 0u);
  EXPECT_EQ(pool.size(), static_cast<size_t>(lm.tokenizer->vocab_size() - 2));

  RepeatedTokens settings;
  settings.sequences = 5;
  settings.length = 6;
  settings.batch = 2;
  const auto batches = repeated_token_batches(pool, settings);
  ASSERT_EQ(batches.size(), 3u);  // 2 + 2 + 1
  EXPECT_EQ(batches[2].input_ids.size(0), 1);
  for (const auto& batch : batches) {
    const auto& ids = batch.input_ids;
    ASSERT_EQ(ids.size(1), 12);
    EXPECT_TRUE(torch::equal(ids.narrow(1, 0, 6), ids.narrow(1, 6, 6)));
    const auto cells = ids.accessor<int64_t, 2>();
    for (int64_t b = 0; b < ids.size(0); ++b)
      for (int64_t i = 0; i < ids.size(1); ++i) EXPECT_EQ(allowed.count(cells[b][i]), 1u);
  }
  EXPECT_TRUE(torch::equal(repeated_token_batches(pool, settings)[0].input_ids, batches[0].input_ids));
  settings.seed = 2;
  EXPECT_FALSE(torch::equal(repeated_token_batches(pool, settings)[0].input_ids, batches[0].input_ids));
}

TEST_F(DescriptorRun, HeadTypesTableAndPanelScores) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("head-types").settings();
  request.settings.set("sequences", "3");
  request.settings.set("score", "previous_token");
  const auto report = analysis("head-types")(request);
  const auto& table = report.tables.at("csv");
  EXPECT_EQ(table.row_count(), 6);  // 2 layers × 3 heads
  EXPECT_EQ(table.meta_text("scores_on"), "the generated sequences");
  EXPECT_EQ(table.meta_text("induction_on"), "3 random sequences of 8 tokens repeated once, seed 1");  // 16 positions
  ASSERT_TRUE(report.head_scores.has_value());
  EXPECT_EQ(report.head_scores->label, "previous_token");
  EXPECT_DOUBLE_EQ(report.head_scores->values[1][2], table.number(5, table.column("previous_token")));
  // Every induction row of the repeated sequences counts: the 8 second-half rows at least.
  EXPECT_GE(table.number(0, table.column("induction_rows")), 3 * 8);

  // With a corpus, every score but induction is read on it.
  request.settings.set("text", dir_.file("corpus.txt"));
  const auto on_corpus = analysis("head-types")(request).tables.at("csv");
  EXPECT_EQ(on_corpus.meta_text("scores_on"), "corpus.txt");
  EXPECT_EQ(on_corpus.number(0, on_corpus.column("induction")), table.number(0, table.column("induction")));
  EXPECT_NE(on_corpus.number(0, on_corpus.column("sink")), table.number(0, table.column("sink")));
  // The induction score on the text as well, in a column of its own.
  EXPECT_EQ(table.column("induction_text"), -1);
  ASSERT_GE(on_corpus.column("induction_text"), 0);
  EXPECT_NE(on_corpus.number(0, on_corpus.column("induction_text")), on_corpus.number(0, on_corpus.column("induction")));
}

TEST_F(DescriptorRun, HeadTypesRefuseBadSettingsAndModels) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  const auto lama = load_checkpoint(dir_.file("lama"));
  auto run = [&](const LoadedModel& model, const std::string& name, const std::string& value) {
    AnalysisRequest request;
    request.models = {&model};
    request.settings = analysis("head-types").settings();
    request.settings.set("sequences", "1");
    if (!name.empty()) request.settings.set(name, value);
    analysis("head-types")(request);
  };
  for (const std::string epsilon : {"0", "1", "1.5", "-0.1"})
    EXPECT_EQ(setting_error_of([&] { run(lm, "sink-epsilon", epsilon); }),
              "--sink-epsilon must be between 0 and 1 (exclusive), got " + epsilon);
  EXPECT_EQ(setting_error_of([&] { run(lm, "sink-epsilon", "a lot"); }), "--sink-epsilon must be a number, got 'a lot'");
  EXPECT_EQ(setting_error_of([&] { run(lm, "length", "9"); }),
            "--length is 9: twice that must fit lm's 16 positions");
  EXPECT_EQ(setting_error_of([&] { run(lm, "score", "copying"); }),
            "--score must be previous_token, duplicate_token, induction, sink, entropy, self or learned_sink, got 'copying'");
  EXPECT_EQ(setting_error_of([&] { run(lm, "score", "learned_sink"); }),
            "--score learned_sink: lm is a transformer_lm model without learned sinks (gpt_oss has them)");
  EXPECT_EQ(test::error_of([&] { run(lama, "", ""); }),
            dir_.file("lama") + ": head-types needs token-to-token self-attention (a language model, or a BERT-style "
                                "classifier or encoder); this checkpoint is a lama classifier");
}

}  // namespace
}  // namespace aw
