// tests/analysis/statistics/test_variant_comparison.cpp — variants compared pair by pair: means, Welch tests
// and intervals by hand, Holm over the pairs, a reference against the others (analysis/statistics/variant_comparison)
#include "analysis/statistics/variant_comparison.h"
#include "analysis/statistics/significance.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace aw {
namespace {

TEST(VariantComparison, MeanSdAndWelchPerPairOfVariants) {
  const auto comparison = compare_variants(
      "perplexity", {{"vanilla", {"v1", "v2", "v3"}, {1, 2, 3}}, {"bet", {"b1", "b2", "b3"}, {4, 5, 7}}, {"sg", {"s1", "s2"}, {2, 2.5}}});
  ASSERT_EQ(comparison.variants.size(), 3u);
  EXPECT_DOUBLE_EQ(comparison.variants[0].mean, 2.0);
  EXPECT_DOUBLE_EQ(comparison.variants[0].sd, 1.0);
  EXPECT_NEAR(comparison.variants[1].mean, 16.0 / 3, 1e-12);
  EXPECT_NEAR(comparison.variants[1].sd, std::sqrt(7.0 / 3), 1e-12);  // ((4−16/3)² + (5−16/3)² + (7−16/3)²) / 2
  ASSERT_EQ(comparison.contrasts.size(), 3u);  // vanilla–bet, vanilla–sg, bet–sg
  EXPECT_EQ(comparison.contrasts[1].first, "vanilla");
  EXPECT_EQ(comparison.contrasts[1].second, "sg");
  EXPECT_NEAR(comparison.contrasts[0].difference, 2.0 - 16.0 / 3, 1e-12);
  const auto welch = welch_t_test({1, 2, 3}, {4, 5, 7});
  EXPECT_DOUBLE_EQ(comparison.contrasts[0].welch.statistic, welch.statistic);
  EXPECT_DOUBLE_EQ(comparison.contrasts[0].welch.p_value, welch.p_value);
  EXPECT_EQ(write_csv(variant_summary_table(comparison)).substr(0, 45), "# metric=perplexity\nvariant,runs,mean,sd\nvani");
  EXPECT_EQ(test::error_of([] { compare_variants("accuracy", {{"a", {"x"}, {0.5}}, {"b", {"y", "z"}, {0.5, 0.6}}}); }),
            "variant 'a' has 1 model; Welch's t-test needs at least 2 runs of each variant");
  EXPECT_EQ(test::error_of([] { compare_variants("accuracy", {{"a", {"x", "y"}, {0.5, 0.4}}, {"a", {"y", "z"}, {0.5, 0.6}}}); }),
            "variant 'a' is given twice");
  EXPECT_EQ(test::error_of([] { compare_variants("accuracy", {{"a", {"x", "y"}, {0.5, 0.4}}}); }),
            "compare needs at least two variants (--variant NAME=DIR,DIR twice or more)");
}

// Holm by hand: the p-values sorted, the i-th smallest times (m − i + 1), running maximum, capped at 1.
std::vector<double> holm_by_hand(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(p.size() - rank) * p[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

const std::vector<VariantScores> three_variants = {
    {"vanilla", {"v1", "v2", "v3"}, {1, 2, 3}}, {"bet", {"b1", "b2", "b3"}, {4, 5, 7}}, {"sg", {"s1", "s2"}, {2, 2.5}}};

TEST(VariantComparison, EveryPairHolmAdjustedOverThePairs) {
  const auto comparison = compare_variants("perplexity", three_variants);
  const std::vector<double> raw = {welch_t_test({1, 2, 3}, {4, 5, 7}).p_value, welch_t_test({1, 2, 3}, {2, 2.5}).p_value,
                                   welch_t_test({4, 5, 7}, {2, 2.5}).p_value};
  const auto expected = holm_by_hand(raw);
  ASSERT_EQ(comparison.contrasts.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(comparison.contrasts[i].welch.p_value, raw[i]);
    EXPECT_NEAR(comparison.contrasts[i].p_holm, expected[i], 1e-15);
    EXPECT_GE(comparison.contrasts[i].p_holm, raw[i]);
  }
  EXPECT_EQ(comparison.reference, "");
  const auto csv = write_csv(variant_tests_table(comparison));
  EXPECT_EQ(csv.substr(0, csv.find('\n', csv.find('\n') + 1)),
            "# metric=perplexity, test=welch, correction=holm\nfirst,second,difference,ci_low,ci_high,t,df,p_value,p_holm");
}

TEST(VariantComparison, WelchIntervalOfTheDifferenceByHand) {
  const auto comparison = compare_variants("perplexity", three_variants);
  // vanilla {1, 2, 3} − bet {4, 5, 7}: s² = 1 and 7/3, n = 3 each, so SE² = 1/3 + 7/9 = 10/9 and
  // ν = (10/9)² / ((1/3)²/2 + (7/9)²/2) = 100/29 ≈ 3.448.
  const double standard_error = std::sqrt(10.0 / 9), df = 100.0 / 29;
  const auto& row = comparison.contrasts[0];
  EXPECT_NEAR(row.welch.degrees_of_freedom, df, 1e-12);
  const double half_width = student_t_quantile(0.975, df) * standard_error;
  EXPECT_NEAR(row.ci_low, 2.0 - 16.0 / 3 - half_width, 1e-12);
  EXPECT_NEAR(row.ci_high, 2.0 - 16.0 / 3 + half_width, 1e-12);
  // Another level: t(0.95, ν) for 90 %.
  const auto ninety = welch_interval({1, 2, 3}, {4, 5, 7}, 0.90);
  EXPECT_NEAR(ninety.first, 2.0 - 16.0 / 3 - student_t_quantile(0.95, df) * standard_error, 1e-12);
  EXPECT_NEAR(ninety.second, 2.0 - 16.0 / 3 + student_t_quantile(0.95, df) * standard_error, 1e-12);
  // The interval leaves out 0 exactly when the two-sided p is under 0.05.
  for (const auto& contrast : comparison.contrasts)
    EXPECT_EQ(contrast.ci_low > 0 || contrast.ci_high < 0, contrast.welch.p_value < 0.05) << contrast.second;
  // Constant runs: no spread, the interval is the difference itself.
  const auto constant = compare_variants("accuracy", {{"a", {"x", "y"}, {0.5, 0.5}}, {"b", {"z", "w"}, {0.25, 0.25}}});
  EXPECT_EQ(constant.contrasts[0].ci_low, 0.25);
  EXPECT_EQ(constant.contrasts[0].ci_high, 0.25);
}

TEST(VariantComparison, AReferenceAgainstEachOtherVariant) {
  const auto comparison = compare_variants("perplexity", three_variants, "bet");
  // bet first, against vanilla and sg in the given order: two tests, Holm over the two.
  ASSERT_EQ(comparison.contrasts.size(), 2u);
  EXPECT_EQ(comparison.contrasts[0].first, "bet");
  EXPECT_EQ(comparison.contrasts[0].second, "vanilla");
  EXPECT_EQ(comparison.contrasts[1].first, "bet");
  EXPECT_EQ(comparison.contrasts[1].second, "sg");
  EXPECT_NEAR(comparison.contrasts[0].difference, 16.0 / 3 - 2.0, 1e-12);
  EXPECT_NEAR(comparison.contrasts[1].difference, 16.0 / 3 - 2.25, 1e-12);
  const std::vector<double> raw = {welch_t_test({4, 5, 7}, {1, 2, 3}).p_value, welch_t_test({4, 5, 7}, {2, 2.5}).p_value};
  const auto expected = holm_by_hand(raw);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(comparison.contrasts[i].welch.p_value, raw[i]);
    EXPECT_NEAR(comparison.contrasts[i].p_holm, expected[i], 1e-15);
  }
  // The welch test is symmetric in its samples: swapping the order only flips t's sign.
  EXPECT_DOUBLE_EQ(comparison.contrasts[0].welch.statistic, -welch_t_test({1, 2, 3}, {4, 5, 7}).statistic);
  const auto csv = write_csv(variant_tests_table(comparison));
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "# metric=perplexity, test=welch, correction=holm, reference=bet");
  EXPECT_EQ(variant_comparison_json(comparison).at("reference"), "bet");
  EXPECT_DOUBLE_EQ(variant_comparison_json(comparison).at("welch").at(1).at("p_holm").get<double>(), expected[1]);
  EXPECT_EQ(test::error_of([] { compare_variants("perplexity", three_variants, "bet_sf"); }),
            "the reference 'bet_sf' is none of the variants (vanilla, bet, sg)");
}

}  // namespace
}  // namespace aw
