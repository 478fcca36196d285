// analysis/heads/pruning_study.h — Michel Figure 3, in two phases so that the heads can be ranked on
// other data than the curves are drawn on (the held-out protocol; or read from a file,
// head_order_file.h): rank the heads, then draw each order's pruning curve.
#pragma once

#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/head_pruning.h"

#include <string>
#include <vector>

namespace aw {

// The heads of `blocks` (empty = all; Michel Figure 4 ranks one attention kind at a time) in
// ascending order of "importance" (normalised I_h) or "oracle" (the single-head ablation damage) on
// `data`; empty when `progress` cancels. `per_example`: I_h in Michel's Eq. 2 form, E_x |∂L(x)/∂ξ_h|
// (head_importance.h), not per batch.
std::vector<HeadRef> rank_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                const std::string& order_name, const ProgressCallback& progress = {},
                                const std::vector<int64_t>& blocks = {}, bool per_example = false);

struct RankedOrder {
  std::string name;  // what the CSV's order column says: importance or oracle
  std::vector<HeadRef> heads;
};

// Each order's curve on `data`, `step_percent` more heads off per point (pruning_curve, with
// `significance`); `cancelled` set when `progress` cancels. `examples` (when given, with the bootstrap)
// receives each order's example scores, one column a point (pruning_curve's), for compare_orders and the
// share's change over a series.
PruningResult pruning_curves(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                             const std::vector<RankedOrder>& orders, double step_percent,
                             const ProgressCallback& progress = {}, const SignificanceOptions& significance = {},
                             std::vector<ExampleScores>* examples = nullptr);

// Fills result.between from the two orders' curves in result.points (pruning_curves') and their example
// scores (undefined without a bootstrap): first − second at each step, the bootstrap paired over the same
// examples and corrected across the steps. Throws aw::Error unless both orders rank the same heads.
void compare_orders(PruningResult& result, const std::vector<RankedOrder>& orders,
                    const std::vector<ExampleScores>& examples);

// Table `percent_pruned,heads_pruned,metric_<first>,metric_<second>,delta` (delta = first − second) with
// metadata model, metric, difference="importance - oracle"; the significance columns follow delta with a
// bootstrap. Throws aw::Error when the result does not compare two orders.
ResultTable order_difference_table(const PruningResult& result);

}  // namespace aw
