// analysis/heads/prunable_share_change.cpp — see prunable_share_change.h.
#include "analysis/heads/prunable_share_change.h"

#include "analysis/statistics/significance.h"
#include "models/errors.h"
#include "models/text/bleu.h"

#include <torch/torch.h>

namespace aw {
namespace {

// The share `points` (one curve) allows, with every point's metric replaced by `metrics` [P].
double share_with(std::vector<PruningPoint> points, const double* metrics, const std::string& metric_name,
                  double max_drop_percent) {
  for (size_t i = 0; i < points.size(); ++i) points[i].metric = metrics[i];
  return prunable_shares(points, metric_name, max_drop_percent).front().percent;
}

// One order's points of a checkpoint's curves.
std::vector<PruningPoint> curve_of(const PruningResult& curves, const std::string& order) {
  std::vector<PruningPoint> points;
  for (const auto& point : curves.points)
    if (point.order == order) points.push_back(point);
  return points;
}

}  // namespace

std::vector<ShareChange> prunable_share_changes(const PruningSeriesResult& series, const std::vector<ExampleScores>& first,
                                                const std::vector<ExampleScores>& last) {
  if (series.curves.size() < 2) throw Error("the prunable share's change needs at least two epoch checkpoints");
  const auto& first_shares = series.shares.front();
  const auto& last_shares = series.shares.back();
  std::vector<ShareChange> changes;
  for (size_t o = 0; o < first_shares.size() && o < last_shares.size(); ++o)
    changes.push_back({first_shares[o].order, series.checkpoints.front().epoch, series.checkpoints.back().epoch,
                       first_shares[o].percent, last_shares[o].percent,
                       last_shares[o].percent - first_shares[o].percent, {}});
  const auto& options = series.curves.front().significance;
  if (!options.enabled() || changes.empty()) return changes;
  if (first.size() != changes.size() || last.size() != changes.size())
    throw Error("the prunable share's change needs example scores for every order");
  const bool bleu = series.metric_name == "bleu";
  // Every order's two curves as columns of the same examples: [first curve | last curve] per order.
  std::vector<torch::Tensor> columns;
  std::vector<int64_t> points_per_curve;
  for (size_t o = 0; o < changes.size(); ++o) {
    const auto& a = first[o];
    const auto& b = last[o];
    if (!a.sums.defined() || !b.sums.defined() || a.sums.size(0) != b.sums.size(0) || a.sums.size(1) != b.sums.size(1))
      throw Error("the first and last checkpoints' curves were not scored on the same examples");
    if (!bleu && !torch::equal(a.counts.to(torch::kFloat64), b.counts.to(torch::kFloat64)))
      throw Error("the first and last checkpoints' examples differ in their tokens");
    points_per_curve.push_back(a.sums.size(1));
    const auto pair = torch::cat({a.sums.to(torch::kFloat64), b.sums.to(torch::kFloat64)}, 1);
    columns.push_back(sums_per_unit(pair, options.blocks));
  }
  auto sums = torch::cat(columns, 1);  // [U, C] or BLEU's [U, C, statistics]
  const int64_t curve_columns = sums.size(1);
  const auto units = sums.size(0);
  const auto values = bleu ? sums.reshape({units, -1})
                           : torch::cat({sums, sums_per_unit(first.front().counts, options.blocks).unsqueeze(1)}, 1);
  const auto resampled = resampled_sums(values, options.resamples, options.seed);
  const auto metrics = (bleu ? metrics_from_sums("bleu", resampled.view({-1, curve_columns, kBleuStatistics}), {})
                             : metrics_from_sums(series.metric_name, resampled.narrow(1, 0, curve_columns),
                                                 resampled.select(1, curve_columns)))
                           .contiguous();  // [B, C]
  const auto draws = metrics.size(0);
  const auto orders = static_cast<int64_t>(changes.size());
  std::vector<double> resampled_changes(static_cast<size_t>(draws * orders)), observed;
  const auto* all = metrics.data_ptr<double>();
  int64_t offset = 0;
  for (size_t o = 0; o < changes.size(); ++o) {
    const auto first_curve = curve_of(series.curves.front(), changes[o].order);
    const auto last_curve = curve_of(series.curves.back(), changes[o].order);
    const auto points = points_per_curve[o];
    if (static_cast<int64_t>(first_curve.size()) != points || static_cast<int64_t>(last_curve.size()) != points)
      throw Error("the example scores do not match the curves of order " + changes[o].order);
    for (int64_t b = 0; b < draws; ++b) {
      const double* row = all + b * curve_columns + offset;
      resampled_changes[static_cast<size_t>(b * orders) + o] =
          share_with(last_curve, row + points, series.metric_name, series.max_drop_percent) -
          share_with(first_curve, row, series.metric_name, series.max_drop_percent);
    }
    observed.push_back(changes[o].delta);
    offset += 2 * points;
  }
  const auto tested = corrected_significance(
      summarize_bootstrap(torch::tensor(observed, torch::kFloat64),
                          torch::tensor(resampled_changes, torch::kFloat64).view({draws, orders})),
      options);
  for (size_t o = 0; o < changes.size(); ++o) changes[o].significance = tested[o].holding(changes[o].delta);
  return changes;
}

ResultTable share_change_table(const PruningSeriesResult& series, const std::vector<ShareChange>& changes) {
  auto table = pruning_series_metadata(series);
  const auto& options = series.curves.empty() ? SignificanceOptions{} : series.curves.front().significance;
  add_significance_meta(table, options);
  table.add_column("order", ColumnType::Text)
      .add_column("first_epoch", ColumnType::Integer)
      .add_column("last_epoch", ColumnType::Integer)
      .add_column("first_percent", ColumnType::Number)
      .add_column("last_percent", ColumnType::Number)
      .add_column("delta", ColumnType::Number);
  if (options.enabled()) add_significance_columns(table);
  for (const auto& change : changes) {
    std::vector<Cell> cells{change.order, change.first_epoch, change.last_epoch, change.first_percent,
                            change.last_percent, change.delta};
    if (options.enabled())
      for (auto& cell : significance_cells(change.significance)) cells.push_back(std::move(cell));
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace aw
