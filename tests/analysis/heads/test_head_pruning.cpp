// tests/analysis/heads/test_head_pruning.cpp — the pruning order, its curve against gated forwards and the
// share prunable within a tolerance (analysis/heads/head_pruning)
#include "analysis/heads/head_pruning.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::metric_with_gates;
using test::TempDir;
using test::tiny_batches;

TEST(HeadPruning, OrderIsAscendingWithTiesByPosition) {
  const auto order = order_heads({{0.5, 0.1, 0.3}, {0.1, 0.9}});
  ASSERT_EQ(order.size(), 5u);
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, 1}, {1, 0}, {0, 2}, {0, 0}, {1, 1}};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i].layer, expected[i].first) << i;
    EXPECT_EQ(order[i].head, expected[i].second) << i;
  }
}

TEST(HeadPruning, CurvePointsAreTheModelWithThoseHeadsGatedOff) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const std::vector<HeadRef> order = {{1, 2}, {0, 0}, {1, 0}, {0, 2}, {0, 1}, {1, 1}};
  const auto points = pruning_curve(*loaded.model, language_model_data(batches), "importance", order, 10.0);
  ASSERT_EQ(points.size(), 11u);
  // round(p/100 · 6) for p = 0, 10, …, 100, worked by hand.
  const std::vector<int64_t> pruned = {0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6};
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].heads_pruned, pruned[i]) << points[i].percent;
    auto gates = all_heads_on(loaded.config);
    for (int64_t k = 0; k < pruned[i]; ++k) gates[order[k].layer][order[k].head] = 0.0;
    const double expected = metric_with_gates(*loaded.model, batches, gates);
    EXPECT_NEAR(points[i].metric, expected, 1e-4 * expected) << points[i].percent;
  }
  EXPECT_THROW(pruning_curve(*loaded.model, language_model_data(batches), "x", order, 0.0), Error);
}

// Hand-worked: base 100 (perplexity), 10 % allowed → up to 110; the curve crosses at 50 %, and a later
// point back under the limit does not count. For accuracy the limit is below: 0.8 × 0.9 = 0.72.
TEST(PrunableShares, StopAtTheFirstPointBeyondTheTolerance) {
  auto point = [](const std::string& order, double percent, int64_t heads, double metric) {
    PruningPoint p;
    p.order = order, p.percent = percent, p.heads_pruned = heads, p.metric = metric;
    return p;
  };
  const std::vector<PruningPoint> curves = {point("importance", 0, 0, 100), point("importance", 25, 2, 104),
                                            point("importance", 50, 4, 111), point("importance", 75, 6, 109),
                                            point("oracle", 0, 0, 100),     point("oracle", 25, 2, 110),
                                            point("oracle", 50, 4, 110)};
  const auto shares = prunable_shares(curves, "perplexity", 10.0);
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].order, "importance");
  EXPECT_EQ(shares[0].percent, 25.0);
  EXPECT_EQ(shares[0].heads, 2);
  EXPECT_EQ(shares[0].metric, 104.0);
  EXPECT_EQ(shares[1].percent, 50.0);  // exactly at the limit is within it
  const std::vector<PruningPoint> accuracy = {point("importance", 0, 0, 0.8), point("importance", 50, 4, 0.73),
                                              point("importance", 100, 8, 0.71)};
  const auto accuracy_shares = prunable_shares(accuracy, "accuracy", 10.0);
  EXPECT_EQ(accuracy_shares[0].percent, 50.0);
  EXPECT_EQ(prunable_shares({point("importance", 0, 0, 0.8), point("importance", 50, 4, NAN)}, "accuracy", 10.0)[0].heads,
            0);
}

}  // namespace
}  // namespace aw
