// tests/analysis/attention_stats/test_stats_intervals.cpp — Table 1's intervals
// (analysis/attention_stats/stats_intervals.h) against a bootstrap worked out in float64 from each
// unit's own statistics, measured by attention_stats on that unit's windows alone; and the same
// intervals when two ranks share the batches.
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/statistics/significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "tests/support/test_support.h"
#include "tests/support/two_rank_stand_in.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace aw {
namespace {

using test::SharedBatches;
using test::TempDir;
using test::three_runs;

constexpr int64_t kWindow = 16;
constexpr int64_t kWindows = 12;
constexpr int64_t kResamples = 300;
constexpr uint64_t kSeed = 7;
// The unit (paragraph) of each window: units of one to three windows.
const std::vector<int64_t> kUnitOfWindow = {0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 5, 6};

std::vector<int64_t> corpus_ids() {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < kWindow * kWindows; ++i) ids.push_back(2 + (i * 7 + i / 5) % 17);
  return ids;
}

// What one unit adds to a row's ratios: its statistic times its entry count gives its sums.
struct UnitSums {
  double diagonal = 0, diagonal_count = 0, lower = 0, lower_count = 0;
  double uniform_diagonal = 0, uniform_diagonal_count = 0, uniform_lower = 0, uniform_lower_count = 0;
};

UnitSums unit_sums(const DiagonalStats& row) {
  // The uniform baseline is one "head" over the same rows: the row's counts over its heads.
  UnitSums sums;
  sums.diagonal_count = static_cast<double>(row.diagonal_entries);
  sums.lower_count = static_cast<double>(row.lower_entries);
  sums.diagonal = row.ca * sums.diagonal_count;
  sums.lower = row.ha_mean * sums.lower_count;
  sums.uniform_diagonal_count = sums.diagonal_count;
  sums.uniform_lower_count = sums.lower_count;
  sums.uniform_diagonal = row.uniform_ca * sums.diagonal_count;
  sums.uniform_lower = row.uniform_ha_mean * sums.lower_count;
  return sums;
}

// The 2.5th and 97.5th percentiles by linear interpolation between order statistics, widened to
// hold the estimate.
StatsInterval percentile_interval(std::vector<double> values, double estimate) {
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<size_t>(std::floor(position));
    const auto above = std::min(below + 1, values.size() - 1);
    return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
  };
  return {std::min(at(0.025), estimate), std::max(at(0.975), estimate)};
}

// The worked units' statistics come from forward passes over their own windows, a batch of another shape
// than the whole text's: float32 attention, which some CPUs' BLAS kernels round differently per shape
// (3e-9 relative seen on an AMD EPYC, where the machine that wrote this test agreed to 1e-9).
void expect_interval(const StatsInterval& got, const StatsInterval& worked, const std::string& what) {
  EXPECT_NEAR(got.low, worked.low, 1e-6 * std::abs(worked.low) + 1e-12) << what;
  EXPECT_NEAR(got.high, worked.high, 1e-6 * std::abs(worked.high) + 1e-12) << what;
  EXPECT_LE(got.low, got.high) << what;
}

TEST(StatsIntervals, EqualABootstrapOfEachParagraphsOwnStatistics) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto ids = corpus_ids();
  AttentionStatsSettings settings;
  settings.significance.resamples = kResamples;
  settings.significance.seed = kSeed;
  settings.significance.blocks = kUnitOfWindow;
  const auto result = attention_stats(*loaded.model, "tiny", make_window_batches(ids, kWindow, 5), settings);

  // Each unit measured alone, window by window.
  const auto single_windows = make_window_batches(ids, kWindow, 1);
  ASSERT_EQ(static_cast<int64_t>(single_windows.size()), kWindows);
  const int64_t units = kUnitOfWindow.back() + 1;
  std::vector<AttentionStatsResult> per_unit;
  for (int64_t unit = 0; unit < units; ++unit) {
    std::vector<ModelInput> windows;
    for (int64_t w = 0; w < kWindows; ++w)
      if (kUnitOfWindow[w] == unit) windows.push_back(single_windows[w]);
    per_unit.push_back(attention_stats(*loaded.model, "tiny", windows, AttentionStatsSettings{}));
  }
  // The resamples' draw counts [B, U]: resampled_sums of the identity draws with the same seed.
  const auto draws = resampled_sums(torch::eye(units, torch::kFloat64), kResamples, kSeed).contiguous();
  const auto counts = draws.accessor<double, 2>();

  auto check = [&](const DiagonalStats& row, auto&& unit_row, const std::string& what) {
    std::vector<double> ca, ha, ratio, over_uniform;
    for (int64_t b = 0; b < kResamples; ++b) {
      UnitSums total;
      for (int64_t unit = 0; unit < units; ++unit) {
        const auto sums = unit_sums(unit_row(per_unit[unit]));
        const double c = counts[b][unit];
        total.diagonal += c * sums.diagonal;
        total.diagonal_count += c * sums.diagonal_count;
        total.lower += c * sums.lower;
        total.lower_count += c * sums.lower_count;
        total.uniform_diagonal += c * sums.uniform_diagonal;
        total.uniform_lower += c * sums.uniform_lower;
      }
      ca.push_back(total.diagonal / total.diagonal_count);
      ha.push_back(total.lower / total.lower_count);
      ratio.push_back(ca.back() / ha.back());
      const double uniform_ratio =
          (total.uniform_diagonal / total.diagonal_count) / (total.uniform_lower / total.lower_count);
      over_uniform.push_back(ratio.back() / uniform_ratio);
    }
    expect_interval(row.ca_interval, percentile_interval(ca, row.ca), what + " CA");
    expect_interval(row.ha_mean_interval, percentile_interval(ha, row.ha_mean), what + " HA");
    expect_interval(row.ratio_interval, percentile_interval(ratio, row.ratio), what + " Ratio");
    expect_interval(row.over_uniform_interval, percentile_interval(over_uniform, row.ratio / row.uniform_ratio),
                    what + " Ratio over uniform");
    // Seven units of different attention: a real interval, not a point.
    EXPECT_LT(row.ca_interval.low, row.ca_interval.high) << what;
  };
  ASSERT_EQ(result.layers.size(), 2u);
  ASSERT_EQ(result.heads.size(), 6u);
  for (size_t layer = 0; layer < result.layers.size(); ++layer)
    check(result.layers[layer], [&](const AttentionStatsResult& unit) { return unit.layers[layer]; },
          "layer " + std::to_string(layer + 1));
  for (size_t head = 0; head < result.heads.size(); ++head)
    check(result.heads[head], [&](const AttentionStatsResult& unit) { return unit.heads[head]; },
          "head row " + std::to_string(head));
}

TEST(StatsIntervals, NoneWithoutResamplesAndTheirColumnsOnlyWithThem) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = make_window_batches(corpus_ids(), kWindow, 4);
  const auto plain = attention_stats(*loaded.model, "tiny", batches, AttentionStatsSettings{});
  EXPECT_TRUE(std::isnan(plain.layers[0].ca_interval.low));
  EXPECT_EQ(attention_stats_table({plain}, false).column("CA_low"), -1);

  AttentionStatsSettings settings;
  settings.significance.resamples = 50;
  settings.significance.unit = "windows";
  settings.significance.units = kWindows;
  const auto with = attention_stats(*loaded.model, "tiny", batches, settings);
  // The estimates do not change with the intervals beside them.
  EXPECT_DOUBLE_EQ(with.layers[1].ca, plain.layers[1].ca);
  const auto table = attention_stats_table({with}, false);
  const int low = table.column("Ratio_over_uniform_low"), high = table.column("Ratio_over_uniform_high");
  ASSERT_GE(low, 0);
  EXPECT_EQ(high, low + 1);
  EXPECT_EQ(table.column("CA_low"), table.column("HA_x_keys_std") + 1);
}

TEST_F(SharedBatches, StatsIntervalsEqualOneProcess) {
  auto run = [&] {
    AttentionStatsSettings settings;
    settings.significance.resamples = 100;
    settings.significance.blocks = {0, 0, 1, 2, 2, 3, 4, 4, 5, 6};  // the ten windows of five batches
    const auto result = attention_stats(*model_, "tiny", batches_, settings);
    std::vector<double> values;
    for (const auto& row : result.heads)
      values.insert(values.end(), {row.ca_interval.low, row.ca_interval.high, row.ratio_interval.low,
                                   row.over_uniform_interval.high});
    return values;
  };
  const auto [whole, part, shared] = three_runs(run);
  (void)part;
  ASSERT_FALSE(whole.empty());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_NEAR(shared[i], whole[i], 1e-12 * std::abs(whole[i])) << i;
}

}  // namespace
}  // namespace aw
