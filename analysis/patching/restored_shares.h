// analysis/patching/restored_shares.h — the share of the clean − corrupted difference each setting
// (a path, a circuit) restores over a set of pairs, Σ_pairs gain / Σ_pairs (clean − corrupted), with
// bootstrap intervals over pairs: one resampling shared by every setting, the denominator resampled with
// them. Used by path-patch and eap (docs/circuits.md).
#pragma once

#include "analysis/statistics/delta_significance.h"
#include "analysis/statistics/significance.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace aw {

struct RestoredShares {
  torch::Tensor share;                      // [K] float64
  std::vector<PairedDifference> intervals;  // per setting; empty without significance, or refused
  std::string refused;                      // why there are no intervals ("" otherwise)
};

// `gains` [P, K]: each pair's m with the setting less its corrupted m; `restored` [P]: clean less corrupted.
// Intervals when `significance` is enabled, unless the mean restored difference's own interval holds 0.
RestoredShares restored_shares(const torch::Tensor& gains, const torch::Tensor& restored,
                               const SignificanceOptions& significance);

}  // namespace aw
