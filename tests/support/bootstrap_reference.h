// tests/support/bootstrap_reference.h — the reference the bootstrap tests compare with: the draws
// resampled_sums takes (analysis/statistics/significance.h) replayed as example indices, so a plain
// float64 loop can recompute each resample, and the verdict (percentile interval widened to hold the
// observed value, shifted-bootstrap p) from the resampled values.
#pragma once

#include "tests/support/numpy_quantile.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace aw::test {

// The draws resampled_sums takes for a small N (one chunk): B rows of N example indices.
inline std::vector<std::vector<int64_t>> draws_of(int64_t examples, int64_t resamples, uint64_t seed) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const auto draws = torch::randint(examples, {resamples, examples}, generator, torch::kLong);
  std::vector<std::vector<int64_t>> rows(static_cast<size_t>(resamples));
  for (int64_t b = 0; b < resamples; ++b)
    for (int64_t i = 0; i < examples; ++i) rows[b].push_back(draws[b][i].item<int64_t>());
  return rows;
}

// The reference verdict from resampled deltas: percentile interval and the shifted-bootstrap p.
struct Expected {
  double low, high, p;
};
inline Expected summarize(const std::vector<double>& deltas, double observed) {
  int64_t as_far = 0;
  for (double d : deltas) as_far += std::fabs(d - observed) >= std::fabs(observed) ? 1 : 0;
  // The interval widened to hold the observed delta (significance.h).
  return {std::min(quantile(deltas, 0.025), observed), std::max(quantile(deltas, 0.975), observed),
          (1.0 + static_cast<double>(as_far)) / static_cast<double>(deltas.size() + 1)};
}

}  // namespace aw::test
