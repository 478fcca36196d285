// tests/support/numpy_quantile.h — numpy's default quantile, the reference the bootstrap tests of
// analysis/statistics/ (significance, delta_significance) compare their intervals with.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace aw::test {

// numpy's default quantile of ascending values: linear between order statistics at q·(n − 1).
inline double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const auto above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

}  // namespace aw::test
