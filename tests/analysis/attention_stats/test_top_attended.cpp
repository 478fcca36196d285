// tests/analysis/attention_stats/test_top_attended.cpp — the keys a row attends to most, ties to the lower
// position (analysis/attention_stats/top_attended)
#include "analysis/attention_stats/top_attended.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

TEST(TopTokens, TiesGoToTheLowerPosition) {
  const auto top = top_attended(torch::tensor({0.2, 0.3, 0.3, 0.2}), 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].position, 1);
  EXPECT_EQ(top[1].position, 2);
  EXPECT_EQ(top[2].position, 0);
  EXPECT_NEAR(top[2].weight, 0.2, 1e-7);
}

}  // namespace
}  // namespace aw
