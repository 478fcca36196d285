// tests/analysis/attention_stats/test_top_tokens.cpp — the most attended tokens of language and translation
// models, and the sentence file's refusals (analysis/attention_stats/top_tokens)
#include "analysis/attention_stats/top_tokens.h"
#include "analysis/capture/translation_capture.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::TinyTranslation;
using test::write_file;

TEST(TopTokens, AreTheLargestHeadMeanWeightsOfTheRowBeforeTheTarget) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const std::string text = "w2 w3 w4 w5 w6 w7 w8";
  const auto rows = top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", {{text, 5}}, 3);
  ASSERT_EQ(rows.size(), 2u);  // one per layer

  ForwardOptions options;
  options.capture = CaptureMode::Full;
  ModelInput input;
  input.input_ids = torch::tensor(loaded.tokenizer->encode(text).ids, torch::kLong).unsqueeze(0);
  torch::NoGradGuard no_grad;
  const auto attention = loaded.model->forward(input, options).attention;
  for (int64_t layer = 0; layer < 2; ++layer) {
    // Head mean of row 4 (the token before target 5) by hand, then the three largest.
    const auto values = attention[layer].to(torch::kFloat64);
    const auto a = values.accessor<double, 4>();
    std::vector<std::pair<double, int64_t>> weights;
    for (int64_t j = 0; j < 7; ++j) weights.emplace_back(-(a[0][0][4][j] + a[0][1][4][j] + a[0][2][4][j]) / 3, j);
    std::sort(weights.begin(), weights.end());
    const auto& row = rows[layer];
    EXPECT_EQ(row.layer, layer + 1);
    EXPECT_EQ(row.target, 5);
    EXPECT_EQ(row.target_token, "w7");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(row.positions[i], weights[i].second);
      EXPECT_EQ(row.tokens[i], "w" + std::to_string(2 + weights[i].second));
      EXPECT_NEAR(row.weights[i], -weights[i].first, 1e-6);
    }
    EXPECT_LE(row.positions[0], 4);  // causal: nothing after the query row
  }
  EXPECT_EQ(write_csv(top_tokens_table(rows, 3)).substr(0, 45), "layer,sentence,target,method,top1,top2,top3\n1");
}

TEST(TopTokens, BadRequestsAreNamed) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  auto message = [&](const std::vector<TopTokensRequest>& requests) {
    try {
      top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", requests, 3);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"w2", -1}}), "sentence 1 gives 1 token(s); a target needs at least 2");
  EXPECT_EQ(message({{"w2 w3", -1}, {"w2 w3 w4", 3}}),
            "sentence 2: target 3 is outside 1..2 (0-based position of the predicted token)");
  EXPECT_EQ(message({{"w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18", -1}}),
            "sentence 1 has 17 tokens but m allows 16");
  write_file(dir.file("s.txt"), "w2 w3\n\nw4 w5\tx\n");
  try {
    read_top_token_requests(dir.file("s.txt"));
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("s.txt") + ":3: target 'x' is not a token position ≥ 1");
  }
  // Found by fuzz/fuzz_sentence_file.cpp: a TAB with nothing before it made a request of no text.
  const auto file_error = [&](const std::string& text) {
    write_file(dir.file("s.txt"), text);
    return test::error_of([&] { read_top_token_requests(dir.file("s.txt")); });
  };
  EXPECT_EQ(file_error("w2 w3\n \t1\n"), dir.file("s.txt") + ":2: no sentence before the TAB");
  EXPECT_EQ(file_error("w2 w3\t99999999999999999999\n"),
            dir.file("s.txt") + ":1: target '99999999999999999999' is not a token position ≥ 1");
}

TEST(TranslationTopTokens, CrossRowsAreTheTopSourceTokensOfTheCapturedHeadMean) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m", 7);
  auto& model = *loaded.model->sequence_to_sequence();
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  SearchSettings search;
  search.beam = 2;
  search.max_new_tokens = 6;
  const std::vector<TopTokensRequest> sentences{{"the cat sleeps", -1}, {"a dog", 2}};
  const auto rows = top_source_tokens(model, codec, "m", sentences, 2, search);
  const auto first = translate_and_capture(model, codec, sentences[0].text, search);
  const auto targets = static_cast<int64_t>(first.decoder_tokens.size()) - 1;
  ASSERT_GT(targets, 0);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), targets + 1);  // every target of sentence 1, one of sentence 2
  // Worked out in float64 from the captured cross-attention (block 3): head mean of row t−1, top 2.
  const auto cross = first.attention[3].to(torch::kFloat64);
  for (int64_t t = 1; t <= targets; ++t) {
    const auto& row = rows[t - 1];
    EXPECT_EQ(row.layer, 1);
    EXPECT_EQ(row.target, t);
    EXPECT_EQ(row.target_token, first.decoder_tokens[t]);
    std::vector<std::pair<double, int64_t>> weights;
    for (int64_t j = 0; j < cross.size(2); ++j) {
      double sum = 0.0;
      for (int64_t h = 0; h < cross.size(0); ++h) sum += cross[h][t - 1][j].item<double>();
      weights.push_back({-sum / cross.size(0), j});
    }
    std::sort(weights.begin(), weights.end());
    ASSERT_EQ(row.positions.size(), 2u);
    EXPECT_EQ(row.positions[0], weights[0].second);
    EXPECT_EQ(row.positions[1], weights[1].second);
    EXPECT_EQ(row.tokens[0], first.source_tokens[weights[0].second]);
    EXPECT_NEAR(row.weights[0], -weights[0].first, 1e-6);
  }
  EXPECT_EQ(rows.back().sentence, 2);
  EXPECT_EQ(rows.back().target, 2);
  const auto error = test::error_of([&] { top_source_tokens(model, codec, "m", {{"a dog", 40}}, 2, search); });
  EXPECT_NE(error.find("sentence 1: target 40 is outside 1.."), std::string::npos) << error;
}

}  // namespace
}  // namespace aw
