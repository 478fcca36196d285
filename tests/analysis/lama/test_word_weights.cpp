// tests/analysis/lama/test_word_weights.cpp — word-weight statistics against hand-computed values: label
// shifts, grouping, keywords, densities and words through the tokenizer (analysis/lama/word_weights)
#include "analysis/lama/word_weights.h"
#include "analysis/statistics/kernel_density.h"
#include "analysis/statistics/significance.h"
#include "models/errors.h"
#include "models/text/tokenizer.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::write_file;

DocumentAttention document(int64_t index, int64_t label, std::vector<std::string> tokens, std::vector<float> weights) {
  DocumentAttention d;
  d.index = index;
  d.label = label;
  d.heads = static_cast<int64_t>(weights.size() / tokens.size());
  d.tokens = std::move(tokens);
  d.weights = std::move(weights);
  return d;
}

// Two heads. "good" occurs twice in document 0 (label "1"), once in document 2 (label "2").
std::vector<DocumentAttention> hand_made_documents() {
  return {document(0, 0, {"good", "movie", "good"}, {0.5f, 0.2f, 0.3f, /**/ 0.1f, 0.1f, 0.8f}),
          document(1, 1, {"bad", "movie"}, {0.9f, 0.1f, /**/ 0.7f, 0.3f}),
          document(2, 1, {"good", "bad", "plot", "<unk>"}, {0.1f, 0.6f, 0.2f, 0.1f, /**/ 0.3f, 0.2f, 0.4f, 0.1f})};
}

TEST(WordWeights, ShiftsBetweenLabelsAreMannWhitneyTestsHolmAdjusted) {
  const std::vector<std::string> labels = {"1", "2", "3"};
  std::vector<WordWeight> occurrences;
  auto add = [&](const std::string& word, const std::string& label, std::vector<double> weights) {
    for (double w : weights) occurrences.push_back({word, label, w, 0, 0});
  };
  add("great", "1", {0.1, 0.2, 0.3});
  add("great", "2", {0.25, 0.4, 0.5, 0.6});
  add("great", "3", {0.2});
  add("bad", "1", {0.5, 0.7});
  add("bad", "3", {0.1, 0.2});
  const auto shifts = word_weight_shifts(occurrences, labels, {"great", "bad"});
  ASSERT_EQ(shifts.size(), 4u);
  // U by hand: pairs where label_a's weight is larger, a tie counting ½.
  const std::vector<std::tuple<std::string, std::string, std::string, double, double>> expected = {
      {"great", "1", "2", 1.0, 1.0 / 12}, {"great", "1", "3", 1.5, 0.5}, {"great", "2", "3", 4.0, 1.0}, {"bad", "1", "3", 4.0, 1.0}};
  const std::vector<std::vector<double>> a = {{0.1, 0.2, 0.3}, {0.1, 0.2, 0.3}, {0.25, 0.4, 0.5, 0.6}, {0.5, 0.7}};
  const std::vector<std::vector<double>> b = {{0.25, 0.4, 0.5, 0.6}, {0.2}, {0.2}, {0.1, 0.2}};
  std::vector<double> raw;
  for (size_t i = 0; i < 4; ++i) {
    const auto& [word, label_a, label_b, u, effect] = expected[i];
    EXPECT_EQ(shifts[i].word, word);
    EXPECT_EQ(shifts[i].label_a, label_a);
    EXPECT_EQ(shifts[i].label_b, label_b);
    EXPECT_EQ(shifts[i].count_a, static_cast<int64_t>(a[i].size()));
    EXPECT_DOUBLE_EQ(shifts[i].u, u);
    EXPECT_DOUBLE_EQ(shifts[i].effect, effect);
    EXPECT_DOUBLE_EQ(shifts[i].p_value, mann_whitney_u(a[i], b[i]).p_value);
    raw.push_back(shifts[i].p_value);
  }
  EXPECT_DOUBLE_EQ(shifts[0].median_b, 0.45);
  const auto adjusted = holm_adjusted(raw);
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(shifts[i].p_adjusted, adjusted[i]);
  EXPECT_EQ(write_csv(word_shift_table(shifts)).substr(0, 83),
            "word,label_a,label_b,count_a,count_b,median_a,median_b,U,effect,p_value,p_adjusted\n");
}

TEST(WordWeights, GroupsOccurrencesByWordAndLabel) {
  const std::vector<std::string> labels = {"1", "2"};
  const auto docs = hand_made_documents();
  const auto mean = collect_word_weights(docs, labels, {"good", "bad"}, {});
  ASSERT_EQ(mean.size(), 5u);
  // good/1: (0.5+0.1)/2, (0.3+0.8)/2; good/2: (0.1+0.3)/2; bad/2: (0.9+0.7)/2, (0.6+0.2)/2.
  const double expected[] = {0.3, 0.55, 0.2, 0.8, 0.4};
  const char* words[] = {"good", "good", "good", "bad", "bad"};
  const char* label_of[] = {"1", "1", "2", "2", "2"};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(mean[i].word, words[i]);
    EXPECT_EQ(mean[i].label, label_of[i]);
    EXPECT_NEAR(mean[i].weight, expected[i], 1e-6) << i;
  }
  WeightSelection head2;
  head2.head = 2;
  head2.scale = WeightScale::Length;
  const auto scaled = collect_word_weights(docs, labels, {"good"}, head2);
  ASSERT_EQ(scaled.size(), 3u);
  EXPECT_NEAR(scaled[0].weight, 0.1 * 3, 1e-6);
  EXPECT_NEAR(scaled[1].weight, 0.8 * 3, 1e-6);
  EXPECT_NEAR(scaled[2].weight, 0.3 * 4, 1e-6);
  EXPECT_EQ(scaled[2].document, 2);
  EXPECT_EQ(scaled[1].position, 2);

  const auto summary = summarize_word_weights(mean, labels, {"good", "bad"});
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[0].word, "good");
  EXPECT_EQ(summary[0].count, 2);
  EXPECT_NEAR(summary[0].mean, 0.425, 1e-6);
  EXPECT_NEAR(summary[0].median, 0.425, 1e-6);
  EXPECT_EQ(summary[2].word, "bad");
  EXPECT_NEAR(summary[2].mean, 0.6, 1e-6);
  EXPECT_EQ(write_csv(word_weights_table(mean)).rfind("word,label,weight\ngood,1,0.3\ngood,1,0.55\ngood,2,0.2\nbad,2,0.8\n", 0), 0u);
  EXPECT_EQ(write_csv(word_summary_table(summary)).rfind("word,label,count,mean,median\ngood,1,2,0.425,0.425\n", 0), 0u);
}

TEST(WordWeights, KeywordsRankByMeanWeightWithMinimumCount) {
  const std::vector<std::string> labels = {"1", "2"};
  KeywordSettings settings;
  settings.min_count = 1;
  settings.top = 2;
  const auto keywords = top_keywords(hand_made_documents(), labels, settings);
  // Label 1: good (0.3, 0.55 → 0.425, 2), movie (0.15); label 2: bad (0.8, 0.4 → 0.6), plot 0.3, movie 0.2,
  // good 0.2; "<unk>" never counts.
  ASSERT_EQ(keywords.size(), 4u);
  EXPECT_EQ(keywords[0].word, "good");
  EXPECT_NEAR(keywords[0].mean_weight, 0.425, 1e-6);
  EXPECT_EQ(keywords[0].count, 2);
  EXPECT_EQ(keywords[1].word, "movie");
  EXPECT_EQ(keywords[2].label, "2");
  EXPECT_EQ(keywords[2].word, "bad");
  EXPECT_EQ(keywords[3].word, "plot");
  EXPECT_EQ(keywords[3].rank, 2);
  settings.min_count = 2;
  const auto frequent = top_keywords(hand_made_documents(), labels, settings);
  ASSERT_EQ(frequent.size(), 2u);  // good in label 1, bad in label 2
  EXPECT_EQ(frequent[1].word, "bad");
  EXPECT_EQ(write_csv(keywords_table(frequent)), "label,rank,word,mean_weight,count\n1,1,good,0.425,2\n2,1,bad,0.6,2\n");
}

TEST(WordWeights, SilvermanBandwidthAndDensity) {
  // σ = √2.5, IQR = 4 − 2 → min(1.5811, 1.4925) = 1.4925; b = 0.9 · 1.4925 · 5^(−1/5).
  const std::vector<double> values = {1, 2, 3, 4, 5};
  EXPECT_NEAR(silverman_bandwidth(values), 0.9 * (2.0 / 1.34) * std::pow(5.0, -0.2), 1e-12);
  EXPECT_NEAR(silverman_bandwidth({0.02, 0.02}), 0.001, 1e-12);  // equal values: 5 % of the mean
  // The density integrates to 1 (trapezoid rule on a wide grid) and peaks at the centre.
  std::vector<double> grid;
  for (int i = 0; i <= 2000; ++i) grid.push_back(-7.0 + 20.0 * i / 2000.0);
  const auto density = gaussian_kde(values, 0.8, grid);
  double area = 0.0;
  for (size_t i = 1; i < grid.size(); ++i) area += 0.5 * (density[i] + density[i - 1]) * (grid[i] - grid[i - 1]);
  EXPECT_NEAR(area, 1.0, 1e-6);
  // One point: f̂(x) = φ((x − v)/b) / b.
  EXPECT_NEAR(gaussian_kde({2.0}, 0.5, {2.5})[0], std::exp(-0.5) / (0.5 * std::sqrt(2 * M_PI)), 1e-12);

  const auto occurrences = collect_word_weights(hand_made_documents(), {"1", "2"}, {"good"}, {});
  const auto curves = word_weight_densities(occurrences, {"1", "2"}, {"good"}, 50);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].x, curves[1].x);  // one grid per word
  EXPECT_EQ(curves[0].x.size(), 50u);
  EXPECT_GE(curves[0].x.front(), 0.0);
}

TEST(WordWeights, ResolvesWordsThroughTheTokenizer) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\ngreat\n!\nworst\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"), /*normalize=*/true);
  EXPECT_EQ(resolve_words(*tokenizer, {"Great", "worst"}), (std::vector<std::string>{"great", "worst"}));
  auto error_of = [&](const std::vector<std::string>& words) {
    try {
      resolve_words(*tokenizer, words);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({}), "--words: no words given (expected a comma-separated list such as amazing,worst)");
  EXPECT_EQ(error_of({"great", "zzz"}), "--words: 'zzz' is not in the model's vocabulary");
  EXPECT_EQ(error_of({"great!"}), "--words: 'great!' is 2 tokens for this model, not one word");
}

}  // namespace
}  // namespace aw
