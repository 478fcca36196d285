// analysis/statistics/kernel_density.h — Gaussian kernel density estimates for the word-weight plots:
//   f̂(x) = 1/(n·b) Σ_i φ((x − x_i)/b),   φ the standard normal density,
// with Silverman's rule of thumb for the bandwidth:
//   b = 0.9 · min(σ̂, IQR/1.34) · n^(−1/5)
// (σ̂ the sample standard deviation, IQR the interquartile range by linear interpolation). When the
// minimum is 0 (e.g. more than half the values equal) the non-zero one of the two is used; when both
// are 0 (one value, or all equal) b = 5 % of |mean| (1e-6 if the mean is 0 as well), so the curve is
// a narrow bump at that value rather than undefined.
#pragma once

#include <vector>

namespace aw {

// The q-quantile (0 ≤ q ≤ 1) of `values` by linear interpolation between order statistics.
double quantile(std::vector<double> values, double q);
double median(const std::vector<double>& values);

double silverman_bandwidth(const std::vector<double>& values);

// f̂ at every point of `grid`.
std::vector<double> gaussian_kde(const std::vector<double>& values, double bandwidth, const std::vector<double>& grid);

}  // namespace aw
