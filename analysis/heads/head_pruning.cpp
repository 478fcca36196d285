// analysis/heads/head_pruning.cpp — see head_pruning.h.
#include "analysis/heads/head_pruning.h"

#include "analysis/heads/head_ablation.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

namespace aw {

std::vector<HeadRef> order_heads(const std::vector<std::vector<double>>& scores) {
  std::vector<std::tuple<double, int64_t, int64_t>> keyed;
  for (size_t layer = 0; layer < scores.size(); ++layer)
    for (size_t head = 0; head < scores[layer].size(); ++head)
      keyed.emplace_back(scores[layer][head], static_cast<int64_t>(layer), static_cast<int64_t>(head));
  std::sort(keyed.begin(), keyed.end());
  std::vector<HeadRef> order;
  for (const auto& [score, layer, head] : keyed) order.push_back({layer, head});
  return order;
}

std::vector<PruningPoint> pruning_curve(AttentionModel& model, const EvaluationData& data, const std::string& order_name,
                                        const std::vector<HeadRef>& order, double step_percent,
                                        const ProgressCallback& progress, const SignificanceOptions& significance,
                                        ExampleScores* examples_out) {
  require_attention_heads(model.config(), "the model", "pruning");
  if (!(step_percent > 0 && step_percent <= 100))
    throw Error("--step must be a percentage in (0, 100], got " + std::to_string(step_percent));
  const auto& config = model.config();
  const auto total = static_cast<int64_t>(order.size());
  std::vector<PruningPoint> points;
  for (int64_t k = 0;; ++k) {
    const double percent = std::min(100.0, k * step_percent);
    PruningPoint point;
    point.order = order_name;
    point.percent = percent;
    point.heads_pruned = static_cast<int64_t>(std::lround(percent / 100.0 * total));
    points.push_back(point);
    if (percent >= 100.0) break;
  }
  auto settings = all_heads_on(config).unsqueeze(0).repeat({static_cast<int64_t>(points.size()), 1, 1});
  for (size_t s = 0; s < points.size(); ++s)
    for (int64_t i = 0; i < points[s].heads_pruned; ++i) settings[s][order[i].layer][order[i].head] = 0.0;
  ExampleScores examples;
  const auto metrics =
      evaluate_gate_settings(model, data, settings, 0, progress, 0, significance.enabled() ? &examples : nullptr);
  if (metrics.empty()) return {};
  std::vector<int64_t> tested;  // the points that differ from the first (at least one head off)
  for (size_t s = 0; s < points.size(); ++s) {
    points[s].metric = metrics[s].metric;
    points[s].delta = metrics[s].metric - metrics.front().metric;
    if (points[s].heads_pruned > 0) tested.push_back(static_cast<int64_t>(s));
  }
  if (significance.enabled() && !tested.empty()) {
    const auto results = delta_significance(examples, 0, tested, significance);
    for (size_t i = 0; i < tested.size(); ++i) {
      auto& point = points[static_cast<size_t>(tested[i])];
      point.significance = results[i].holding(point.delta);
    }
  }
  if (examples_out && significance.enabled()) *examples_out = std::move(examples);
  return points;
}

ResultTable pruning_table(const PruningResult& result) {
  ResultTable table;
  table.meta("model", result.model).meta("metric", result.metric_name);
  if (!result.attention.empty()) table.meta("attention", result.attention);
  if (!result.ranked_on.empty()) table.meta("ranked_on", result.ranked_on);
  if (result.per_example) table.meta("importance", "per_example");
  const bool tested = result.significance.enabled();
  add_significance_meta(table, result.significance);
  table.add_column("order", ColumnType::Text)
      .add_column("percent_pruned", ColumnType::Number)
      .add_column("heads_pruned", ColumnType::Integer)
      .add_column("metric", ColumnType::Number)
      .add_column("delta", ColumnType::Number);
  if (tested) add_significance_columns(table);
  for (const auto& p : result.points) {
    std::vector<Cell> row{p.order, p.percent, p.heads_pruned, p.metric, p.delta};
    if (tested) append_cells(row, significance_cells(p.significance));
    table.add_row(std::move(row));
  }
  return table;
}

std::vector<PrunableShare> prunable_shares(const std::vector<PruningPoint>& points, const std::string& metric_name,
                                           double max_drop_percent) {
  const bool lower_is_better = metric_name == "perplexity";
  std::vector<PrunableShare> shares;
  bool crossed = false;
  for (const auto& point : points) {
    if (shares.empty() || shares.back().order != point.order) {  // a new curve: its first point is the base
      shares.push_back({point.order, point.metric, point.percent, point.heads_pruned, point.metric});
      crossed = false;
      continue;
    }
    auto& share = shares.back();
    const double allowed = std::abs(share.base_metric) * max_drop_percent / 100.0;
    const double worse = lower_is_better ? point.metric - share.base_metric : share.base_metric - point.metric;
    crossed = crossed || !(worse <= allowed);  // NaN counts as beyond
    if (crossed) continue;
    share.percent = point.percent;
    share.heads = point.heads_pruned;
    share.metric = point.metric;
  }
  return shares;
}

ResultTable pruning_series_metadata(const PruningSeriesResult& result) {
  ResultTable table;
  table.meta("model", result.model)
      .meta("metric", result.metric_name)
      .meta("max_drop", result.max_drop_percent)
      .meta("series", result.series_dir);
  if (!result.ranked_on.empty()) table.meta("ranked_on", result.ranked_on);
  return table;
}

ResultTable pruning_series_table(const PruningSeriesResult& result) {
  auto table = pruning_series_metadata(result);
  table.add_column("epoch", ColumnType::Integer)
      .add_column("step", ColumnType::Integer)
      .add_column("order", ColumnType::Text)
      .add_column("base_metric", ColumnType::Number)
      .add_column("prunable_percent", ColumnType::Number)
      .add_column("prunable_heads", ColumnType::Integer)
      .add_column("metric_at_prunable", ColumnType::Number);
  for (size_t i = 0; i < result.shares.size() && i < result.checkpoints.size(); ++i)
    for (const auto& share : result.shares[i])
      table.row(result.checkpoints[i].epoch, result.checkpoints[i].step, share.order, share.base_metric, share.percent,
                share.heads, share.metric);
  return table;
}

ResultTable pruning_series_curves_table(const PruningSeriesResult& result) {
  std::vector<ResultTable> curves;
  for (const auto& curve : result.curves) curves.push_back(pruning_table(curve));
  auto joined = pruning_series_metadata(result);
  if (!result.curves.empty()) add_significance_meta(joined, result.curves.front().significance);
  return series_table(std::move(joined), result.checkpoints, curves);
}

}  // namespace aw
