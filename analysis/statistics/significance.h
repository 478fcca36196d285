// analysis/statistics/significance.h — the statistics that turn per-example numbers into claims a reviewer
// accepts: the paired bootstrap over examples (interval and p-value of a mean difference, for many
// settings at once), corrections for testing many heads (Holm, Benjamini–Hochberg), correlation of
// per-head effects across data sets (Pearson, Spearman), Welch's t-test between seeds of two variants,
// and the Mann–Whitney U test between two samples of word weights.
//
// Letters: N examples, S settings compared with one baseline, B bootstrap resamples.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace aw {

// The bootstrap's resampling: each of `resamples` draws N examples with replacement (one draw shared
// by every column, from `seed`) and sums each column of `values` [N, K] over the draw. Returns the
// [B, K] float64 sums, computed as one [B, N] × [N, K] product of draw counts (chunked near 128 MB).
// Sums, not means, so a caller can form ratios (loss over tokens) or corpus scores (BLEU's n-gram
// counts) of each resample. Throws aw::Error for N = 0, B < 1 or a non-2-D input.
torch::Tensor resampled_sums(const torch::Tensor& values, int64_t resamples, uint64_t seed);

// The rows of `values` [N, …] added up per unit: example i belongs to unit blocks[i] (0, 1, …), and
// the result is [units, …] float64 on the host. Empty `blocks`: every example is its own unit.
torch::Tensor sums_per_unit(const torch::Tensor& values, const std::vector<int64_t>& blocks);

// One setting's paired comparison with the baseline over the same examples.
struct PairedDifference {
  double mean = 0;       // mean over examples of (setting − baseline)
  double low = 0;        // 95 % percentile interval of that mean under resampling examples
  double high = 0;
  double p_value = 1;    // two-sided: resampled means as far from the mean as 0 is (below)
};

// The paired bootstrap over examples. `differences` [N, S] holds per-example (setting − baseline) for
// S settings; each of `resamples` draws N examples with replacement (one draw shared by all settings,
// from `seed`) and takes each setting's mean. The interval is the 2.5th–97.5th percentile of the B
// means, widened to hold the observed mean where it falls outside; the p-value tests "mean
// difference = 0" by the shifted bootstrap, (1 + #{b : |m_b − m| ≥ |m|}) / (B + 1) (a tie within one
// part in 10⁹ of |m| counts), which is 1 for a zero mean and never 0. Throws aw::Error for N = 0,
// B < 1 or a non-2-D input.
// The resamples are one [B, N] × [N, S] product of draw counts with the differences (float64).
std::vector<PairedDifference> paired_bootstrap(const torch::Tensor& differences, int64_t resamples, uint64_t seed);

// Interval and p-value of S observed differences [S] from their resampled values [B, S], by the rules
// of paired_bootstrap (percentile interval, shifted-bootstrap p). `resolution` [S], when given, is how
// finely each difference can be told apart at all (the float resolution of the values it is computed
// from): a resample within it of "as far as 0" is a tie and counts, so that another CPU's last bits
// cannot decide it, and a difference no larger than it has p = 1. Without it: one part in 10⁹ of |m|.
std::vector<PairedDifference> summarize_bootstrap(const torch::Tensor& observed, const torch::Tensor& resampled,
                                                  const torch::Tensor& resolution = {});

// Family-wise (Holm's step-down) and false-discovery-rate (Benjamini–Hochberg step-up) adjusted
// p-values, in the input's order, each at most 1 and monotone in the raw p-values; a hypothesis is
// rejected at level α when its adjusted p-value is ≤ α.
std::vector<double> holm_adjusted(const std::vector<double>& p_values);
std::vector<double> benjamini_hochberg_adjusted(const std::vector<double>& p_values);

// Correlation of two equally long samples; NaN when either is constant or they have fewer than 2
// values. Spearman's is Pearson's over ranks, ties sharing their mean rank.
double pearson_r(const std::vector<double>& x, const std::vector<double>& y);
double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

struct TestResult {
  double statistic = 0;        // t (Welch) or U of the first sample (Mann–Whitney)
  double degrees_of_freedom = 0;  // Welch–Satterthwaite ν; 0 for Mann–Whitney
  double p_value = 1;          // two-sided
};

// Welch's unequal-variance t-test of mean(a) = mean(b); each sample needs at least 2 values (throws
// aw::Error otherwise); p from Student's t with ν degrees of freedom. Both samples constant: p = 1 if
// the means agree, else 0.
TestResult welch_t_test(const std::vector<double>& a, const std::vector<double>& b);
// The `confidence` (e.g. 0.95) Welch interval of mean(a) − mean(b): the difference ± t((1 + c)/2, ν)·SE
// with welch_t_test's ν and SE = √(s_a²/n_a + s_b²/n_b); [difference, difference] when both samples are
// constant. It leaves out 0 exactly when welch_t_test's p is under 1 − confidence.
std::pair<double, double> welch_interval(const std::vector<double>& a, const std::vector<double>& b, double confidence);

// Mann–Whitney U test of "neither sample tends to be larger", with the normal approximation
// (continuity- and tie-corrected). Throws aw::Error for an empty sample.
TestResult mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// Ranks 1..n of `values`, ties sharing their mean rank.
std::vector<double> tied_ranks(const std::vector<double>& values);

// P(T ≤ t) for Student's t with ν > 0 degrees of freedom (through the regularised incomplete beta).
double student_t_cdf(double t, double degrees_of_freedom);
// The t with P(T ≤ t) = p for Student's t with ν > 0 degrees of freedom, 0 < p < 1 (bisection on
// student_t_cdf to double precision; throws aw::Error outside those ranges).
double student_t_quantile(double p, double degrees_of_freedom);

}  // namespace aw
