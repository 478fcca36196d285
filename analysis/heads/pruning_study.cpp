// analysis/heads/pruning_study.cpp — see pruning_study.h.
#include "analysis/heads/pruning_study.h"

#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {

std::vector<HeadRef> rank_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                const std::string& order_name, const ProgressCallback& progress,
                                const std::vector<int64_t>& blocks, bool per_example) {
  // Only the chosen blocks' heads take part: the others stay out of the order (and so stay on).
  auto chosen = [&](std::vector<HeadRef> order) {
    if (blocks.empty()) return order;
    std::vector<HeadRef> kept;
    for (const auto& head : order)
      if (std::find(blocks.begin(), blocks.end(), head.layer) != blocks.end()) kept.push_back(head);
    return kept;
  };
  if (order_name == "importance") {
    const auto importance = head_importance(model, model_name, data, true, {}, progress, per_example);
    if (importance.cancelled) return {};
    return chosen(order_heads(importance.scores));
  }
  if (order_name == "oracle") {
    const auto ablation = ablate_heads(model, model_name, data, AblationMode::Single, {}, progress, blocks);
    if (ablation.cancelled) return {};
    std::vector<std::vector<double>> harm(model.config().n_blocks);
    for (const auto& effect : ablation.heads)
      harm[effect.layer - 1].push_back(damage(ablation.metric_name, ablation.baseline, effect.metric));
    return chosen(order_heads(harm));
  }
  throw Error("pruning order must be importance or oracle, got '" + order_name + "'");
}

PruningResult pruning_curves(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                             const std::vector<RankedOrder>& orders, double step_percent,
                             const ProgressCallback& progress, const SignificanceOptions& significance,
                             std::vector<ExampleScores>* examples_out) {
  PruningResult result;
  result.model = model_name;
  result.metric_name = data.metric_name();
  result.significance = significance;
  std::vector<ExampleScores> local;
  auto& examples = examples_out ? *examples_out : local;
  examples.assign(orders.size(), ExampleScores{});
  for (size_t i = 0; i < orders.size(); ++i) {
    const auto curve = pruning_curve(model, data, orders[i].name, orders[i].heads, step_percent, progress,
                                     significance, &examples[i]);
    if (curve.empty()) return result.cancelled = true, result;
    result.points.insert(result.points.end(), curve.begin(), curve.end());
  }
  return result;
}

void compare_orders(PruningResult& result, const std::vector<RankedOrder>& orders,
                    const std::vector<ExampleScores>& examples) {
  std::vector<PruningPoint> first, second;  // each order's curve, in the order pruning_curves joined them
  for (const auto& point : result.points) (point.order == orders[0].name ? first : second).push_back(point);
  if (first.size() != second.size() || orders[0].heads.size() != orders[1].heads.size())
    throw Error("comparing pruning orders needs both to rank the same heads");
  const auto total = static_cast<int64_t>(orders[0].heads.size());
  result.compared_orders = {orders[0].name, orders[1].name};
  std::vector<std::pair<int64_t, int64_t>> columns;  // (first's point, second's point) in the joined examples
  for (size_t s = 0; s < first.size(); ++s) {
    if (first[s].heads_pruned == 0 || first[s].heads_pruned == total) continue;  // the same heads in both
    result.between.push_back({first[s].percent, first[s].heads_pruned, first[s].metric, second[s].metric,
                              first[s].metric - second[s].metric, {}});
    columns.emplace_back(static_cast<int64_t>(s), static_cast<int64_t>(first.size() + s));
  }
  if (!result.significance.enabled() || columns.empty()) return;
  ExampleScores joined = examples[0];  // both orders' points as columns of the same examples
  joined.sums = torch::cat({examples[0].sums, examples[1].sums}, 1);
  const auto tested = paired_settings_significance(joined, columns, result.significance);
  for (size_t i = 0; i < tested.size(); ++i)
    result.between[i].significance = tested[i].holding(result.between[i].delta);
}

ResultTable order_difference_table(const PruningResult& result) {
  if (result.compared_orders.size() != 2) throw Error("no two pruning orders to compare (--order both)");
  const auto& names = result.compared_orders;
  ResultTable table;
  table.meta("model", result.model).meta("metric", result.metric_name).meta("difference", names[0] + " - " + names[1]);
  if (!result.attention.empty()) table.meta("attention", result.attention);
  if (!result.ranked_on.empty()) table.meta("ranked_on", result.ranked_on);
  const bool tested = result.significance.enabled();
  add_significance_meta(table, result.significance);
  table.add_column("percent_pruned", ColumnType::Number)
      .add_column("heads_pruned", ColumnType::Integer)
      .add_column("metric_" + names[0], ColumnType::Number)
      .add_column("metric_" + names[1], ColumnType::Number)
      .add_column("delta", ColumnType::Number);
  if (tested) add_significance_columns(table);
  for (const auto& step : result.between) {
    std::vector<Cell> row{step.percent, step.heads_pruned, step.first_metric, step.second_metric, step.delta};
    if (tested) append_cells(row, significance_cells(step.significance));
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
