// analysis/patching/restored_shares.cpp — see restored_shares.h.
#include "analysis/patching/restored_shares.h"

#include <torch/torch.h>

namespace aw {

RestoredShares restored_shares(const torch::Tensor& gains, const torch::Tensor& restored,
                               const SignificanceOptions& significance) {
  RestoredShares out;
  out.share = (gains.sum(0) / restored.sum()).contiguous();
  if (!significance.enabled()) return out;
  const auto k = gains.size(1);
  const auto resampled = resampled_sums(torch::cat({gains, restored.unsqueeze(1)}, 1), significance.resamples, significance.seed);
  const auto count = static_cast<double>(restored.size(0));
  const auto denominator = summarize_bootstrap(restored.mean().view({1}), resampled.narrow(1, k, 1) / count);
  if (denominator[0].low <= 0 && denominator[0].high >= 0)
    out.refused = "no intervals: the mean logit difference clean - corrupted has a 95 % interval that holds 0";
  else
    out.intervals = summarize_bootstrap(out.share, resampled.narrow(1, 0, k) / resampled.narrow(1, k, 1));
  return out;
}

}  // namespace aw
