// tests/analysis/statistics/test_delta_significance.cpp — the bootstrap of metric deltas against plain float64
// loops over the same draws: perplexity as exp(Σ loss / Σ tokens) of each resample, accuracy as
// Σ correct / n, BLEU as corpus_bleu of the resampled sentences (analysis/statistics/delta_significance)
#include "analysis/statistics/delta_significance.h"
#include "analysis/statistics/significance.h"
#include "models/errors.h"
#include "models/text/bleu.h"
#include "tests/support/bootstrap_reference.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::draws_of;
using test::summarize;

// exp(Σ loss / Σ tokens) of setting `setting` over the chosen examples (with repeats), in float64.
double perplexity_of(const ExampleScores& scores, const std::vector<int64_t>& chosen, int64_t setting) {
  double loss = 0, tokens = 0;
  for (auto i : chosen) loss += scores.sums[i][setting].item<double>(), tokens += scores.counts[i].item<double>();
  return std::exp(loss / tokens);
}

std::vector<int64_t> every_example(int64_t examples) {
  std::vector<int64_t> all(examples);
  for (int64_t i = 0; i < examples; ++i) all[i] = i;
  return all;
}


TEST(DeltaSignificance, PerplexityDeltasEqualLoopsOverTheSameDraws) {
  const int64_t examples = 30, settings = 3, resamples = 250;
  const uint64_t seed = 9;
  ExampleScores scores;
  scores.metric_name = "perplexity";
  scores.sums = torch::empty({examples, settings}, torch::kFloat64);
  scores.counts = torch::empty({examples}, torch::kFloat64);
  for (int64_t i = 0; i < examples; ++i) {
    const double tokens = 10 + i % 5;  // windows of different lengths: a ratio, not a mean of means
    scores.counts[i] = tokens;
    scores.sums[i][0] = tokens * (2.0 + 0.3 * std::sin(static_cast<double>(i)));
    scores.sums[i][1] = tokens * (2.4 + 0.3 * std::sin(static_cast<double>(i)) + 0.05 * std::cos(3.0 * i));  // clearly worse
    scores.sums[i][2] = tokens * (2.0 + 0.3 * std::sin(static_cast<double>(i)) + (i % 2 ? 0.2 : -0.2));       // noise only
  }
  SignificanceOptions options;
  options.resamples = resamples;
  options.seed = seed;
  const auto results = delta_significance(scores, 0, {1, 2}, options);
  ASSERT_EQ(results.size(), 2u);

  const auto draws = draws_of(examples, resamples, seed);
  auto perplexity = [&](const std::vector<int64_t>& chosen, int64_t setting) {
    return perplexity_of(scores, chosen, setting);
  };
  const auto everything = every_example(examples);
  std::vector<double> raw;
  for (int64_t s = 1; s <= 2; ++s) {
    std::vector<double> deltas;
    for (const auto& chosen : draws) deltas.push_back(perplexity(chosen, s) - perplexity(chosen, 0));
    const auto expected = summarize(deltas, perplexity(everything, s) - perplexity(everything, 0));
    const auto& got = results[static_cast<size_t>(s - 1)];
    EXPECT_NEAR(got.low, expected.low, 1e-9);
    EXPECT_NEAR(got.high, expected.high, 1e-9);
    EXPECT_DOUBLE_EQ(got.p_value, expected.p);
    raw.push_back(expected.p);
  }
  // Holm for two hypotheses, by hand: the smaller p doubled, the larger never below it.
  const double first = std::min(1.0, 2 * std::min(raw[0], raw[1]));
  const double second = std::max(first, std::max(raw[0], raw[1]));
  EXPECT_DOUBLE_EQ(results[0].p_adjusted, raw[0] <= raw[1] ? first : second);
  EXPECT_DOUBLE_EQ(results[1].p_adjusted, raw[0] <= raw[1] ? second : first);
  EXPECT_TRUE(results[0].significant);
  EXPECT_GT(results[0].low, 0);
  EXPECT_FALSE(results[1].significant);
  EXPECT_LT(results[1].low, 0);
  EXPECT_GT(results[1].high, 0);

  // Benjamini–Hochberg on request; the same seed repeats the output, another seed moves it.
  options.correction = Correction::BenjaminiHochberg;
  const auto bh = delta_significance(scores, 0, {1, 2}, options);
  const auto bh_expected = benjamini_hochberg_adjusted(raw);
  EXPECT_DOUBLE_EQ(bh[0].p_adjusted, bh_expected[0]);
  EXPECT_DOUBLE_EQ(bh[1].p_adjusted, bh_expected[1]);
  EXPECT_EQ(bh[1].low, results[1].low);
  options.seed = seed + 1;
  EXPECT_NE(delta_significance(scores, 0, {1, 2}, options)[1].low, results[1].low);
}

// Pairs of settings, neither the baseline (two pruning orders at one step): each pair's delta from the
// same draws, as loops over them compute it.
TEST(DeltaSignificance, PairsOfSettingsEqualLoopsOverTheSameDraws) {
  const int64_t examples = 24, resamples = 200;
  const uint64_t seed = 5;
  ExampleScores scores;
  scores.metric_name = "perplexity";
  scores.sums = torch::empty({examples, 3}, torch::kFloat64);
  scores.counts = torch::empty({examples}, torch::kFloat64);
  for (int64_t i = 0; i < examples; ++i) {
    const double tokens = 8 + i % 3;
    scores.counts[i] = tokens;
    for (int64_t s = 0; s < 3; ++s)
      scores.sums[i][s] = tokens * (2.0 + 0.2 * s + 0.3 * std::sin(static_cast<double>(i + s)));
  }
  SignificanceOptions options;
  options.resamples = resamples;
  options.seed = seed;
  const std::vector<std::pair<int64_t, int64_t>> pairs{{1, 2}, {2, 0}};
  const auto results = paired_settings_significance(scores, pairs, options);
  ASSERT_EQ(results.size(), 2u);
  const auto draws = draws_of(examples, resamples, seed);
  auto perplexity = [&](const std::vector<int64_t>& chosen, int64_t setting) {
    return perplexity_of(scores, chosen, setting);
  };
  const auto everything = every_example(examples);
  for (size_t k = 0; k < pairs.size(); ++k) {
    const auto [a, b] = pairs[k];
    std::vector<double> deltas;
    for (const auto& chosen : draws) deltas.push_back(perplexity(chosen, a) - perplexity(chosen, b));
    const auto expected = summarize(deltas, perplexity(everything, a) - perplexity(everything, b));
    EXPECT_NEAR(results[k].low, expected.low, 1e-9) << k;
    EXPECT_NEAR(results[k].high, expected.high, 1e-9) << k;
    EXPECT_DOUBLE_EQ(results[k].p_value, expected.p) << k;
  }
}

// Windows of one paragraph resampled together: each draw picks paragraphs, and a drawn paragraph
// brings every one of its windows (a cluster bootstrap), by a plain loop over the same draws.
TEST(DeltaSignificance, BlocksResampleTheirExamplesTogether) {
  const int64_t resamples = 300;
  const uint64_t seed = 4;
  // 9 windows in 4 paragraphs of 3, 1, 4 and 1 windows.
  const std::vector<int64_t> blocks{0, 0, 0, 1, 2, 2, 2, 2, 3};
  const int64_t examples = static_cast<int64_t>(blocks.size()), paragraphs = 4;
  ExampleScores scores;
  scores.metric_name = "perplexity";
  scores.sums = torch::empty({examples, 2}, torch::kFloat64);
  scores.counts = torch::empty({examples}, torch::kFloat64);
  for (int64_t i = 0; i < examples; ++i) {
    const double tokens = 8 + i % 3;
    scores.counts[i] = tokens;
    scores.sums[i][0] = tokens * (2.0 + 0.4 * std::sin(1.7 * i));
    scores.sums[i][1] = tokens * (2.1 + 0.4 * std::sin(1.7 * i) + 0.3 * std::cos(2.3 * i));
  }
  SignificanceOptions options;
  options.resamples = resamples;
  options.seed = seed;
  options.blocks = blocks;
  const auto result = delta_significance(scores, 0, {1}, options).at(0);

  auto perplexity = [&](const std::vector<int64_t>& chosen_paragraphs, int64_t setting) {
    double loss = 0, tokens = 0;
    for (auto paragraph : chosen_paragraphs)
      for (int64_t i = 0; i < examples; ++i)
        if (blocks[static_cast<size_t>(i)] == paragraph)
          loss += scores.sums[i][setting].item<double>(), tokens += scores.counts[i].item<double>();
    return std::exp(loss / tokens);
  };
  std::vector<double> deltas;
  for (const auto& chosen : draws_of(paragraphs, resamples, seed)) deltas.push_back(perplexity(chosen, 1) - perplexity(chosen, 0));
  const std::vector<int64_t> all_paragraphs{0, 1, 2, 3};
  const auto expected = summarize(deltas, perplexity(all_paragraphs, 1) - perplexity(all_paragraphs, 0));
  EXPECT_NEAR(result.low, expected.low, 1e-9);
  EXPECT_NEAR(result.high, expected.high, 1e-9);
  EXPECT_DOUBLE_EQ(result.p_value, expected.p);

  // Without the blocks the nine windows are resampled one by one: another interval.
  options.blocks.clear();
  const auto one_by_one = delta_significance(scores, 0, {1}, options).at(0);
  EXPECT_GT(std::fabs(one_by_one.low - result.low) + std::fabs(one_by_one.high - result.high), 1e-6);
}

TEST(DeltaSignificance, AccuracyDeltasEqualLoopsOverTheSameDraws) {
  const int64_t examples = 40, resamples = 200;
  ExampleScores scores;
  scores.metric_name = "accuracy";
  scores.sums = torch::zeros({examples, 2}, torch::kFloat64);
  scores.counts = torch::ones({examples}, torch::kFloat64);
  for (int64_t i = 0; i < examples; ++i) {
    scores.sums[i][0] = (i % 4 != 0) ? 1.0 : 0.0;  // 75 % right
    scores.sums[i][1] = (i % 2 == 0) ? 1.0 : 0.0;  // 50 % right
  }
  SignificanceOptions options;
  options.resamples = resamples;
  options.seed = 4;
  const auto result = delta_significance(scores, 0, {1}, options).front();
  // In whole examples: the observed delta is −10 of 40, and a resample exactly as far from it as 0
  // is (delta 0 or −20) counts, whatever rounding the division would do.
  std::vector<double> deltas;
  int64_t as_far = 0;
  for (const auto& chosen : draws_of(examples, resamples, 4)) {
    int64_t difference = 0;
    for (auto i : chosen) difference += (i % 2 == 0 ? 1 : 0) - (i % 4 != 0 ? 1 : 0);
    deltas.push_back(static_cast<double>(difference) / examples);
    as_far += std::abs(difference + 10) >= 10 ? 1 : 0;
  }
  const auto expected = summarize(deltas, -0.25);
  EXPECT_NEAR(result.low, expected.low, 1e-12);
  EXPECT_NEAR(result.high, expected.high, 1e-12);
  EXPECT_DOUBLE_EQ(result.p_value, (1.0 + static_cast<double>(as_far)) / (resamples + 1));
  EXPECT_DOUBLE_EQ(result.p_adjusted, result.p_value);  // one hypothesis: nothing to correct
}

TEST(DeltaSignificance, BleuDeltasAreCorpusBleuOfTheResampledSentences) {
  const std::vector<std::string> references = {"the cat sat on the mat .", "a dog ran in the park today .",
                                                "it is raining again in paris .", "we had dinner at eight .",
                                                "the train was late this morning .", "she reads a book every week .",
                                                "my brother plays the guitar .", "they built a small house ."};
  const std::vector<std::vector<std::string>> hypotheses = {
      {"the cat sat on the mat .", "a dog ran in the park .", "it rains again in paris .", "we had dinner at eight .",
       "the train was late this morning .", "she reads one book every week .", "my brother plays guitar .",
       "they built a small house ."},
      {"cat on mat .", "dog in park .", "raining paris .", "dinner at eight .", "train late .", "she reads .",
       "brother guitar .", "a small house ."}};
  const auto sentences = static_cast<int64_t>(references.size());
  ExampleScores scores;
  scores.metric_name = "bleu";
  scores.sums = torch::empty({sentences, 2, kBleuStatistics}, torch::kFloat64);
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t i = 0; i < sentences; ++i) {
      const auto statistics = sentence_bleu_statistics(hypotheses[s][i], references[i], static_cast<size_t>(i));
      for (int k = 0; k < kBleuStatistics; ++k) scores.sums[i][s][k] = static_cast<double>(statistics[k]);
    }
  // The summed sentence statistics are corpus BLEU.
  const auto observed = metrics_from_sums("bleu", scores.sums.sum(0), {});
  EXPECT_DOUBLE_EQ(observed[1].item<double>(), corpus_bleu(hypotheses[1], references).score);

  const int64_t resamples = 120;
  SignificanceOptions options;
  options.resamples = resamples;
  options.seed = 21;
  const auto result = delta_significance(scores, 0, {1}, options).front();
  std::vector<double> deltas;
  for (const auto& chosen : draws_of(sentences, resamples, 21)) {
    std::vector<std::string> good, poor, wanted;
    for (auto i : chosen) good.push_back(hypotheses[0][i]), poor.push_back(hypotheses[1][i]), wanted.push_back(references[i]);
    deltas.push_back(corpus_bleu(poor, wanted).score - corpus_bleu(good, wanted).score);
  }
  const auto expected =
      summarize(deltas, corpus_bleu(hypotheses[1], references).score - corpus_bleu(hypotheses[0], references).score);
  EXPECT_NEAR(result.low, expected.low, 1e-9);
  EXPECT_NEAR(result.high, expected.high, 1e-9);
  EXPECT_DOUBLE_EQ(result.p_value, expected.p);
  EXPECT_TRUE(result.significant);
}

// The case of one window of one text: every resample is that window, so the resampled deltas sit at
// one value; the float64 sums put it 5e-6 from the delta the evaluation printed. The interval holds
// both the bootstrap's own estimate and the printed one.
TEST(DeltaSignificance, TheIntervalAlwaysHoldsItsEstimate) {
  const auto below = summarize_bootstrap(torch::tensor({1.0}, torch::kFloat64),
                                         torch::tensor({0.2, 0.3, 0.4, 0.5}, torch::kFloat64).view({4, 1}));
  EXPECT_NEAR(below.front().low, 0.2075, 1e-12);  // numpy's linear percentile of 4 values
  EXPECT_EQ(below.front().high, 1.0);
  const auto above = summarize_bootstrap(torch::tensor({-1.0}, torch::kFloat64),
                                         torch::tensor({0.2, 0.3, 0.4, 0.5}, torch::kFloat64).view({4, 1}));
  EXPECT_EQ(above.front().low, -1.0);

  const DeltaSignificance printed{-0.632833, -0.632833, 0.000999, 0.000999, true};
  const auto held = printed.holding(-0.632828);
  EXPECT_EQ(held.low, -0.632833);
  EXPECT_EQ(held.high, -0.632828);
  EXPECT_EQ(printed.holding(-0.7).low, -0.7);
  EXPECT_EQ(printed.holding(-0.7).high, -0.632833);
}

TEST(DeltaSignificance, NoExamplesIsRefused) {
  ExampleScores empty;
  empty.metric_name = "perplexity";
  empty.sums = torch::zeros({0, 2}, torch::kFloat64);
  empty.counts = torch::zeros({0}, torch::kFloat64);
  SignificanceOptions options;
  options.resamples = 10;
  EXPECT_EQ(error_of([&] { delta_significance(empty, 0, {1}, options); }), "significance: no examples to resample");
  EXPECT_EQ(error_of([] { correction_from_name("bonferroni"); }), "correction must be holm or bh, got 'bonferroni'");
}

}  // namespace
}  // namespace aw
