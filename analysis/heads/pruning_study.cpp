// analysis/heads/pruning_study.cpp — see pruning_study.h.
#include "analysis/heads/pruning_study.h"

#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "models/errors.h"

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
                             const ProgressCallback& progress, const SignificanceOptions& significance) {
  PruningResult result;
  result.model = model_name;
  result.metric_name = data.metric_name();
  result.significance = significance;
  for (const auto& order : orders) {
    const auto points = pruning_curve(model, data, order.name, order.heads, step_percent, progress, significance);
    if (points.empty()) return result.cancelled = true, result;
    result.points.insert(result.points.end(), points.begin(), points.end());
  }
  return result;
}

}  // namespace aw
