// tests/analysis/statistics/test_significance.cpp — the statistics of analysis/statistics/significance.h against hand-worked values,
// closed forms, numerical integration and plain float64 loops.
#include "analysis/statistics/significance.h"
#include "models/errors.h"
#include "tests/support/numpy_quantile.h"
#include "tests/support/test_support.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::quantile;

TEST(PairedBootstrap, EqualsPlainLoopsOverTheSameDraws) {
  const int64_t examples = 40, settings = 3, resamples = 300;
  const uint64_t seed = 11;
  // Hand-made per-example differences: a clear effect, none, and a small noisy one.
  std::vector<std::vector<double>> columns(settings);
  for (int64_t i = 0; i < examples; ++i) {
    columns[0].push_back(0.5 + 0.1 * std::sin(static_cast<double>(i)));
    columns[1].push_back(i % 2 == 0 ? 0.3 : -0.3);
    columns[2].push_back(0.02 + 0.2 * std::cos(1.7 * static_cast<double>(i)));
  }
  auto differences = torch::empty({examples, settings}, torch::kFloat64);
  for (int64_t i = 0; i < examples; ++i)
    for (int64_t s = 0; s < settings; ++s) differences[i][s] = columns[s][i];

  const auto results = paired_bootstrap(differences.to(torch::kFloat32), resamples, seed);
  ASSERT_EQ(results.size(), 3u);

  // The same draws, taken as the implementation takes them (one chunk for this size), summed by loops.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto draws = torch::randint(examples, {resamples, examples}, generator, torch::kLong);
  const auto* index = draws.data_ptr<int64_t>();
  for (int64_t s = 0; s < settings; ++s) {
    // float32 input: the implementation sees the float32-rounded values.
    std::vector<double> column;
    for (double v : columns[s]) column.push_back(static_cast<double>(static_cast<float>(v)));
    double observed = 0;
    for (double v : column) observed += v;
    observed /= examples;
    std::vector<double> means;
    int64_t as_far = 0;
    for (int64_t b = 0; b < resamples; ++b) {
      double sum = 0;
      for (int64_t i = 0; i < examples; ++i) sum += column[index[b * examples + i]];
      means.push_back(sum / examples);
      if (std::fabs(means.back() - observed) >= std::fabs(observed)) ++as_far;
    }
    EXPECT_NEAR(results[s].mean, observed, 1e-12);
    EXPECT_NEAR(results[s].low, quantile(means, 0.025), 1e-12);
    EXPECT_NEAR(results[s].high, quantile(means, 0.975), 1e-12);
    EXPECT_DOUBLE_EQ(results[s].p_value, (1.0 + as_far) / (resamples + 1));
  }
  // The clear effect is significant, the alternating one not.
  EXPECT_LT(results[0].p_value, 0.01);
  EXPECT_GT(results[0].low, 0.4);
  EXPECT_GT(results[1].p_value, 0.5);
  EXPECT_LT(results[1].low, 0);
  EXPECT_GT(results[1].high, 0);
}

TEST(PairedBootstrap, TheSeedGivesIdenticalOutputAndAnotherSeedDiffers) {
  const auto differences = torch::randn({500, 4}, torch::kFloat64) + 0.05;
  const auto first = paired_bootstrap(differences, 200, 3);
  const auto again = paired_bootstrap(differences, 200, 3);
  const auto other = paired_bootstrap(differences, 200, 4);
  for (size_t s = 0; s < first.size(); ++s) {
    EXPECT_EQ(first[s].low, again[s].low);
    EXPECT_EQ(first[s].high, again[s].high);
    EXPECT_EQ(first[s].p_value, again[s].p_value);
    EXPECT_NE(first[s].low, other[s].low);
  }
}

TEST(PairedBootstrap, ConstantDifferencesAndBadInput) {
  const auto constant = torch::full({30, 1}, 0.25, torch::kFloat64);
  const auto result = paired_bootstrap(constant, 99, 1);
  EXPECT_DOUBLE_EQ(result[0].low, 0.25);
  EXPECT_DOUBLE_EQ(result[0].high, 0.25);
  EXPECT_DOUBLE_EQ(result[0].p_value, 1.0 / 100);  // no resample is as far from 0.25 as 0 is
  const auto zero = paired_bootstrap(torch::zeros({30, 1}), 99, 1);
  EXPECT_DOUBLE_EQ(zero[0].p_value, 1.0);
  EXPECT_EQ(error_of([] { paired_bootstrap(torch::zeros({0, 2}), 10, 1); }),
            "paired bootstrap: no examples to resample");
  EXPECT_EQ(error_of([] { paired_bootstrap(torch::zeros({5, 2}), 0, 1); }),
            "paired bootstrap: needs at least one resample, got 0");
  EXPECT_EQ(error_of([] { paired_bootstrap(torch::zeros({5}), 10, 1); }),
            "paired bootstrap: differences must be [examples, settings], got [5]");
}

// p = {0.01, 0.04, 0.03, 0.005}: sorted 0.005, 0.01, 0.03, 0.04.
// Holm: 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, max(1·0.04, 0.06) = 0.06.
// BH:   0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04 (running minimum from the top).
TEST(MultipleComparisons, HolmAndBenjaminiHochbergWorkedExample) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const auto holm = holm_adjusted(p);
  const auto bh = benjamini_hochberg_adjusted(p);
  const std::vector<double> holm_expected = {0.03, 0.06, 0.06, 0.02};
  const std::vector<double> bh_expected = {0.02, 0.04, 0.04, 0.02};
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(holm[i], holm_expected[i], 1e-15) << i;
    EXPECT_NEAR(bh[i], bh_expected[i], 1e-15) << i;
  }
  // Holm caps at 1 (2·0.5 = 1, then max(0.9, 1)); BH's step-up lowers an earlier value to a later
  // one's (0.3·2/1 = 0.6 becomes 0.5·2/2 = 0.5).
  EXPECT_EQ(holm_adjusted({0.9, 0.5}), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(benjamini_hochberg_adjusted({0.5, 0.3}), (std::vector<double>{0.5, 0.5}));
  EXPECT_TRUE(holm_adjusted({}).empty());
}

TEST(Correlation, PearsonAndSpearmanHandWorked) {
  // dx = −1.5, −.5, .5, 1.5; dy = −3, −1, 0, 4: Σdxdy = 11, Σdx² = 5, Σdy² = 26.
  EXPECT_NEAR(pearson_r({1, 2, 3, 4}, {2, 4, 5, 9}), 11 / std::sqrt(130.0), 1e-15);
  // Ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4): Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5.
  EXPECT_NEAR(spearman_rho({1, 2, 2, 3}, {10, 30, 20, 40}), 4.5 / std::sqrt(22.5), 1e-15);
  EXPECT_EQ(tied_ranks({3, 1, 3, 2}), (std::vector<double>{3.5, 1, 3.5, 2}));
  EXPECT_TRUE(std::isnan(pearson_r({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(spearman_rho({1}, {2})));
  EXPECT_EQ(error_of([] { pearson_r({1, 2}, {1}); }), "correlation needs samples of one length, got 2 and 1");
}

// The t density integrated by Simpson's rule from 0 to |t| (an independent route to the CDF).
double t_cdf_by_integration(double t, double nu) {
  const double norm = std::exp(std::lgamma((nu + 1) / 2) - std::lgamma(nu / 2)) / std::sqrt(nu * std::acos(-1.0));
  const auto density = [&](double x) { return norm * std::pow(1 + x * x / nu, -(nu + 1) / 2); };
  const int steps = 20000;
  const double h = std::fabs(t) / steps;
  double sum = density(0) + density(std::fabs(t));
  for (int i = 1; i < steps; ++i) sum += (i % 2 == 1 ? 4 : 2) * density(i * h);
  const double half = sum * h / 3;
  return t >= 0 ? 0.5 + half : 0.5 - half;
}

TEST(StudentT, CdfAgainstClosedFormsTablesAndIntegration) {
  EXPECT_NEAR(student_t_cdf(1, 1), 0.75, 1e-14);  // Cauchy
  for (double t : {-3.0, -0.4, 0.0, 1.3, 5.0})     // ν = 2: 1/2 + t / (2 √(2 + t²))
    EXPECT_NEAR(student_t_cdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-13) << t;
  EXPECT_NEAR(student_t_cdf(2.228138852, 10), 0.975, 1e-9);  // the table's t(0.975, 10)
  for (double nu : {3.0, 5.882353, 17.5, 120.0})
    for (double t : {-2.5, -1.0, 0.3, 1.897, 4.0})
      EXPECT_NEAR(student_t_cdf(t, nu), t_cdf_by_integration(t, nu), 1e-10) << t << " " << nu;
}

TEST(StudentT, QuantileInvertsTheCdfAndMatchesTables) {
  // Two-sided 95 % critical values from printed t tables (ν = 1, 2, 4, 30) and the normal limit.
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736, 1e-8);  // tan(0.475π) in closed form
  EXPECT_NEAR(student_t_quantile(0.975, 1), std::tan(0.475 * M_PI), 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302652730, 1e-8);   // 2(p−½)·√(2 / (1 − 4(p−½)²)) closed form
  EXPECT_NEAR(student_t_quantile(0.975, 2), 0.95 * std::sqrt(2 / (1 - 0.95 * 0.95)), 1e-9);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445105, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042272456, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.975, 1e7), 1.959963985, 1e-6);
  for (const double df : {1.0, 2.6, 3.97, 12.5})
    for (const double p : {0.01, 0.3, 0.5, 0.9, 0.975}) {
      EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-12) << "p " << p << ", df " << df;
      EXPECT_DOUBLE_EQ(student_t_quantile(1 - p, df), -student_t_quantile(p, df));
    }
  EXPECT_EQ(error_of([] { student_t_quantile(1.0, 3); }), "a quantile needs 0 < p < 1, got 1.000000");
  EXPECT_EQ(error_of([] { student_t_quantile(0.5, 0); }), "Student's t needs degrees of freedom > 0, got 0.000000");
}

TEST(WelchTTest, HandWorkedStatisticDegreesOfFreedomAndP) {
  // means 3 and 6, variances 2.5 and 10: se² = 0.5 + 2 = 2.5, t = −3/√2.5, ν = 2.5² / (0.5²/4 + 2²/4).
  const auto result = welch_t_test({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_NEAR(result.statistic, -3 / std::sqrt(2.5), 1e-14);
  EXPECT_NEAR(result.degrees_of_freedom, 6.25 / 1.0625, 1e-12);
  EXPECT_NEAR(result.p_value, 2 * t_cdf_by_integration(result.statistic, result.degrees_of_freedom), 1e-10);
  const auto same = welch_t_test({2, 2, 2}, {2, 2});
  EXPECT_EQ(same.p_value, 1);
  EXPECT_EQ(welch_t_test({1, 1}, {2, 2}).p_value, 0);
  EXPECT_EQ(error_of([] { welch_t_test({1}, {2, 3}); }),
            "Welch's t-test needs at least 2 values in each sample, got 1 and 2");
}

TEST(MannWhitney, HandWorkedWithAndWithoutTies) {
  // {1,2,3} vs {4,5,6}: U = 0, mean 4.5, σ² = 9/12 · 7 = 5.25; z = (4.5 − 0.5)/√5.25.
  const auto separated = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(separated.statistic, 0);
  EXPECT_NEAR(separated.p_value, std::erfc(4 / std::sqrt(5.25) / std::sqrt(2.0)), 1e-15);
  // {1,2,2} vs {2,3}: ranks 1, 3, 3 | 3, 5 → R = 7, U = 7 − 6 = 1; mean 3; one tie group of 3:
  // σ² = 6/12 · (6 − 24/20) = 2.4; z = (2 − 0.5)/√2.4.
  const auto tied = mann_whitney_u({1, 2, 2}, {2, 3});
  EXPECT_EQ(tied.statistic, 1);
  EXPECT_NEAR(tied.p_value, std::erfc(1.5 / std::sqrt(2.4) / std::sqrt(2.0)), 1e-15);
  EXPECT_EQ(mann_whitney_u({1, 1}, {1, 1, 1}).p_value, 1);
  EXPECT_EQ(error_of([] { mann_whitney_u({}, {1}); }), "the Mann–Whitney test needs values in both samples, got 0 and 1");
}

}  // namespace
}  // namespace aw
