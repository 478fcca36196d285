// tests/models/test_distribution.cpp — models/distribution.h: the batch sums every rank adds, in sequential
// order (the engines' sharing of batches is tested beside each engine).
#include "models/distribution.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

TEST(BatchSums, AddsRowsInBatchOrderFromZero) {
  BatchSums sums(3, {2}, torch::dtype(torch::kFloat64));
  sums.row(0).copy_(torch::tensor({1e16, 1.0}, torch::kFloat64));
  sums.row(1).copy_(torch::tensor({1.0, 2.0}, torch::kFloat64));
  sums.row(2).copy_(torch::tensor({-1e16, 3.0}, torch::kFloat64));
  const auto total = sums.total(current_distribution());
  // ((0 + 1e16) + 1) − 1e16 = 0 in double: the order is the sequential one, not a pairwise sum.
  EXPECT_EQ(total[0].item<double>(), 0.0);
  EXPECT_EQ(total[1].item<double>(), 6.0);
}

}  // namespace
}  // namespace aw
