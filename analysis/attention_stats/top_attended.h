// analysis/attention_stats/top_attended.h — the keys a query row attends to most.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

struct AttendedToken {
  int64_t position = 0;
  double weight = 0.0;
};

// The k keys with the largest weight in `row` (a 1-d tensor), ties broken by the lower position.
std::vector<AttendedToken> top_attended(const torch::Tensor& row, int64_t k);

}  // namespace aw
