// analysis/attention_stats/stats_intervals.cpp — see stats_intervals.h.
#include "analysis/attention_stats/stats_intervals.h"

#include "analysis/statistics/significance.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {
namespace {

// CA, HA(μ) and Ratio of sums [R, 8, …] (the accumulator's layout): [R, 3, …].
torch::Tensor table_values(const torch::Tensor& sums) {
  const auto ca = sums.select(1, 0) / sums.select(1, 1);
  const auto ha_mean = sums.select(1, 2) / sums.select(1, 4);
  return torch::stack({ca, ha_mean, ca / ha_mean}, 1);
}

// CA, HA(μ), Ratio and Ratio over uniform, per layer [R, 4, L] and per head [R, 4, L, H], of R sets of
// sums [R, 8, L, H] and their uniform baselines [R, 8, 2, 1]; kinds [L]: 0 causal rows, 1 encoder rows.
struct TableValues {
  torch::Tensor layers, heads;
};

TableValues values_of(const torch::Tensor& sums, const torch::Tensor& uniform, const torch::Tensor& kinds) {
  const auto uniform_ratio = table_values(uniform.select(3, 0)).select(1, 2).index_select(1, kinds);  // [R, L]
  const auto layers = table_values(sums.sum(3));
  const auto heads = table_values(sums);
  return {torch::cat({layers, (layers.select(1, 2) / uniform_ratio).unsqueeze(1)}, 1),
          torch::cat({heads, (heads.select(1, 2) / uniform_ratio.unsqueeze(2)).unsqueeze(1)}, 1)};
}

// The percentile interval of one value, widened to hold the estimate the table prints beside it
// (that one comes from the batch totals, and may differ from the units' total in the last digit).
StatsInterval holding(const PairedDifference& summary, double estimate) {
  if (std::isnan(estimate)) return {};
  return {std::min(summary.low, estimate), std::max(summary.high, estimate)};
}

}  // namespace

void add_stats_intervals(AttentionStatsResult& result, const torch::Tensor& window_sums,
                         const torch::Tensor& window_uniform, const std::vector<bool>& encoder_block,
                         const SignificanceOptions& options) {
  TORCH_CHECK(options.enabled(), "add_stats_intervals needs resamples > 0");
  const auto units = sums_per_unit(window_sums.flatten(1), options.blocks);            // [U, 8·L·H]
  const auto uniform_units = sums_per_unit(window_uniform.flatten(1), options.blocks);  // [U, 16]
  const int64_t cells = units.size(1);
  // One resampling of the units for the model's sums and the baseline's alike.
  const auto drawn = resampled_sums(torch::cat({units, uniform_units}, 1), options.resamples, options.seed);
  auto shape = window_sums.sizes().vec(), uniform_shape = window_uniform.sizes().vec();
  shape[0] = uniform_shape[0] = -1;
  std::vector<int64_t> kind_of_block;
  for (const bool encoder : encoder_block) kind_of_block.push_back(encoder ? 1 : 0);
  const auto kinds = torch::tensor(kind_of_block, torch::kLong);
  const auto resampled = values_of(drawn.narrow(1, 0, cells).reshape(shape),
                                   drawn.narrow(1, cells, drawn.size(1) - cells).reshape(uniform_shape), kinds);
  const auto observed = values_of(units.sum(0, true).reshape(shape), uniform_units.sum(0, true).reshape(uniform_shape), kinds);
  const auto per_layer = summarize_bootstrap(observed.layers.flatten(1)[0], resampled.layers.flatten(1));
  const auto per_head = summarize_bootstrap(observed.heads.flatten(1)[0], resampled.heads.flatten(1));
  const int64_t layers = window_sums.size(2), heads = window_sums.size(3);
  // Row `value` (0 CA … 3 Ratio over uniform) of block `layer`, head `head` (0: the layer's), 1-based.
  auto summary = [&](int64_t value, int64_t layer, int64_t head) -> const PairedDifference& {
    const auto cell = value * layers + layer - 1;
    return head == 0 ? per_layer.at(static_cast<size_t>(cell)) : per_head.at(static_cast<size_t>(cell * heads + head - 1));
  };
  for (auto* rows : {&result.layers, &result.heads})
    for (auto& row : *rows) {
      row.ca_interval = holding(summary(0, row.layer, row.head), row.ca);
      row.ha_mean_interval = holding(summary(1, row.layer, row.head), row.ha_mean);
      row.ratio_interval = holding(summary(2, row.layer, row.head), row.ratio);
      row.over_uniform_interval = holding(summary(3, row.layer, row.head), row.ratio / row.uniform_ratio);
    }
}

}  // namespace aw
