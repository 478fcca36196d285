// analysis/statistics/kernel_density.cpp — see kernel_density.h.
#include "analysis/statistics/kernel_density.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace aw {

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const auto above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

double median(const std::vector<double>& values) { return quantile(values, 0.5); }

double silverman_bandwidth(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  if (values.empty()) return 1e-6;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0.0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  const double deviation = values.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  const double spread = (quantile(values, 0.75) - quantile(values, 0.25)) / 1.34;
  double scale = std::min(deviation, spread);
  if (scale <= 0.0) scale = std::max(deviation, spread);
  if (scale <= 0.0) return mean != 0.0 ? 0.05 * std::abs(mean) : 1e-6;
  return 0.9 * scale * std::pow(n, -0.2);
}

std::vector<double> gaussian_kde(const std::vector<double>& values, double bandwidth, const std::vector<double>& grid) {
  const double norm = 1.0 / (static_cast<double>(values.size()) * bandwidth * std::sqrt(2.0 * M_PI));
  std::vector<double> density(grid.size(), 0.0);
  if (values.empty()) return density;
  for (size_t i = 0; i < grid.size(); ++i) {
    double sum = 0.0;
    for (const double value : values) {
      const double z = (grid[i] - value) / bandwidth;
      sum += std::exp(-0.5 * z * z);
    }
    density[i] = sum * norm;
  }
  return density;
}

}  // namespace aw
