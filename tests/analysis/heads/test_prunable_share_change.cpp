// tests/analysis/heads/test_prunable_share_change.cpp — Michel §6 tested (analysis/heads/prunable_share_change):
// the change in the prunable share from the first epoch checkpoint to the last, its bootstrap against a
// plain float64 loop over the same draws (every point's perplexity recomputed from the drawn examples,
// then both shares by prunable_shares), the changes without a bootstrap, and the refusals.
#include "analysis/heads/prunable_share_change.h"
#include "models/errors.h"
#include "tests/support/bootstrap_reference.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::draws_of;
using test::error_of;
using test::summarize;

constexpr int64_t kExamples = 30;
const std::vector<double> kPercents{0, 25, 50, 75, 100};

// One checkpoint's example scores for one order: per example, a loss per token rising with the share
// pruned at `slope` (a later checkpoint: a gentler slope, so more heads can go), plus noise that
// differs between examples, so resamples move the curve across the 10 % tolerance now and then.
ExampleScores checkpoint_scores(double slope, double phase) {
  ExampleScores scores;
  scores.metric_name = "perplexity";
  scores.sums = torch::empty({kExamples, static_cast<int64_t>(kPercents.size())}, torch::kFloat64);
  scores.counts = torch::empty({kExamples}, torch::kFloat64);
  for (int64_t i = 0; i < kExamples; ++i) {
    const double tokens = 6 + i % 4;
    scores.counts[i] = tokens;
    for (size_t p = 0; p < kPercents.size(); ++p) {
      const double noise = 0.15 * std::sin(1.3 * static_cast<double>(i) + phase + static_cast<double>(p));
      scores.sums[i][static_cast<int64_t>(p)] = tokens * (3.0 + slope * kPercents[p] / 100.0 + noise * (p > 0));
    }
  }
  return scores;
}

// exp(Σ loss / Σ tokens) of point `point` over the chosen examples (with repeats).
double perplexity_of(const ExampleScores& scores, const std::vector<int64_t>& chosen, size_t point) {
  double loss = 0, tokens = 0;
  for (auto i : chosen)
    loss += scores.sums[i][static_cast<int64_t>(point)].item<double>(), tokens += scores.counts[i].item<double>();
  return std::exp(loss / tokens);
}

// The share prunable_shares reads off the curve these examples give.
double share_of(const ExampleScores& scores, const std::vector<int64_t>& chosen) {
  std::vector<PruningPoint> points;
  for (size_t p = 0; p < kPercents.size(); ++p)
    points.push_back({"importance", kPercents[p], static_cast<int64_t>(p * 2), perplexity_of(scores, chosen, p), 0, {}});
  return prunable_shares(points, "perplexity", 10.0).front().percent;
}

// A series of two checkpoints (epochs 1 and 4) whose curves and shares are those of `first` and
// `last` over every example, as prune --series builds it.
PruningSeriesResult series_of(const ExampleScores& first, const ExampleScores& last, int64_t resamples) {
  PruningSeriesResult series;
  series.model = "run";
  series.series_dir = "runs/run";
  series.metric_name = "perplexity";
  series.max_drop_percent = 10.0;
  std::vector<int64_t> everything;
  for (int64_t i = 0; i < kExamples; ++i) everything.push_back(i);
  for (const auto* scores : {&first, &last}) {
    PruningResult curves;
    curves.metric_name = "perplexity";
    curves.significance.resamples = resamples;
    curves.significance.seed = 3;
    for (size_t p = 0; p < kPercents.size(); ++p)
      curves.points.push_back({"importance", kPercents[p], static_cast<int64_t>(p * 2),
                               perplexity_of(*scores, everything, p), 0, {}});
    series.shares.push_back(prunable_shares(curves.points, "perplexity", 10.0));
    series.curves.push_back(std::move(curves));
  }
  series.checkpoints = {{"runs/run/epoch-1", 1, 10}, {"runs/run/epoch-4", 4, 40}};
  return series;
}

TEST(PrunableShareChange, EqualsLoopsOverTheSameDraws) {
  const auto first = checkpoint_scores(1.2, 0.0), last = checkpoint_scores(0.25, 0.7);
  const int64_t resamples = 300;
  const auto series = series_of(first, last, resamples);
  const auto changes = prunable_share_changes(series, {first}, {last});
  ASSERT_EQ(changes.size(), 1u);
  const auto& change = changes[0];
  EXPECT_EQ(change.order, "importance");
  EXPECT_EQ(change.first_epoch, 1);
  EXPECT_EQ(change.last_epoch, 4);
  EXPECT_EQ(change.first_percent, series.shares[0][0].percent);
  EXPECT_EQ(change.last_percent, series.shares[1][0].percent);
  EXPECT_GT(change.delta, 0);  // the gentler curve allows more
  std::vector<double> deltas;
  for (const auto& chosen : draws_of(kExamples, resamples, 3)) deltas.push_back(share_of(last, chosen) - share_of(first, chosen));
  // The test is worth its name only if resamples disagree about the shares.
  EXPECT_NE(*std::min_element(deltas.begin(), deltas.end()), *std::max_element(deltas.begin(), deltas.end()));
  const auto expected = summarize(deltas, change.delta);
  EXPECT_DOUBLE_EQ(change.significance.low, expected.low);
  EXPECT_DOUBLE_EQ(change.significance.high, expected.high);
  EXPECT_DOUBLE_EQ(change.significance.p_value, expected.p);
  EXPECT_DOUBLE_EQ(change.significance.p_adjusted, expected.p);  // one order: nothing to correct
  const auto table = share_change_table(series, changes);
  EXPECT_EQ(table.column("delta_low"), 6);
  EXPECT_EQ(table.meta_text("bootstrap"), "300");
}

TEST(PrunableShareChange, WithoutABootstrapTheChangeStandsAlone) {
  const auto first = checkpoint_scores(1.2, 0.0), last = checkpoint_scores(0.25, 0.7);
  const auto series = series_of(first, last, 0);
  const auto changes = prunable_share_changes(series, {}, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].delta, series.shares[1][0].percent - series.shares[0][0].percent);
  const auto table = share_change_table(series, changes);
  EXPECT_EQ(table.column("delta_low"), -1);
  EXPECT_EQ(table.columns().size(), 6u);
}

TEST(PrunableShareChange, RefusesOneCheckpointAndOtherExamples) {
  const auto first = checkpoint_scores(1.2, 0.0), last = checkpoint_scores(0.25, 0.7);
  auto series = series_of(first, last, 100);
  auto other = last;
  other.counts = other.counts + 1;  // the same number of examples, other tokens
  EXPECT_EQ(error_of([&] { prunable_share_changes(series, {first}, {other}); }),
            "the first and last checkpoints' examples differ in their tokens");
  other = last;
  other.sums = other.sums.narrow(0, 0, kExamples - 1);
  EXPECT_EQ(error_of([&] { prunable_share_changes(series, {first}, {other}); }),
            "the first and last checkpoints' curves were not scored on the same examples");
  series.curves.pop_back();
  EXPECT_EQ(error_of([&] { prunable_share_changes(series, {first}, {last}); }),
            "the prunable share's change needs at least two epoch checkpoints");
}

}  // namespace
}  // namespace aw
