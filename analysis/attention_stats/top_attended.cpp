// analysis/attention_stats/top_attended.cpp — see top_attended.h.
#include "analysis/attention_stats/top_attended.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {

std::vector<AttendedToken> top_attended(const torch::Tensor& row, int64_t k) {
  // A stable descending sort keeps equal weights in position order, so ties go to the lower position.
  auto [sorted, order] = torch::sort(row.to(torch::kCPU, torch::kFloat64), /*stable=*/true, /*dim=*/0,
                                     /*descending=*/true);
  const int64_t count = std::min<int64_t>(k, row.numel());
  std::vector<AttendedToken> top;
  for (int64_t i = 0; i < count; ++i)
    top.push_back({order[i].item<int64_t>(), sorted[i].item<double>()});
  return top;
}

}  // namespace aw
