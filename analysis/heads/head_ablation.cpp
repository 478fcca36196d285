// analysis/heads/head_ablation.cpp — see head_ablation.h.
#include "analysis/heads/head_ablation.h"

#include "analysis/statistics/significance.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <sstream>

namespace aw {

namespace {

// A head whose setting is evaluated (0-based): switched off (single) or kept alone in its block.
struct HeadTarget {
  int64_t layer = 0;
  int64_t head = 0;
};

AblationResult empty_result(const AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                            AblationMode mode, const SignificanceOptions& significance) {
  require_attention_heads(model.config(), model_name, "ablation");
  AblationResult result;
  result.model = model_name;
  result.metric_name = data.metric_name();
  result.mode = mode;
  result.names = block_names(model.config());
  result.significance = significance;
  return result;
}

// One pass over the data: the baseline (first layer L: nothing differs), then each target's setting from
// its layer up; the lower layers are computed once per batch for all of them. Sets the result's baseline
// (or cancelled) and returns each target's effect, the bootstrap corrected across the targets.
std::vector<HeadEffect> evaluate_targets(AttentionModel& model, const EvaluationData& data, const torch::Tensor& base,
                                         const std::vector<HeadTarget>& targets, const ProgressCallback& progress,
                                         AblationResult& result) {
  std::vector<torch::Tensor> settings{base};
  std::vector<int64_t> first_layers{model.config().n_blocks};
  for (const auto& target : targets) {
    auto gates = base.clone();
    if (result.mode == AblationMode::Single) {
      gates[target.layer][target.head] = 0.0;
    } else {
      gates[target.layer].zero_();
      gates[target.layer][target.head] = base[target.layer][target.head];
    }
    settings.push_back(gates);
    first_layers.push_back(target.layer);
  }
  const auto& significance = result.significance;
  ExampleScores examples;
  const auto metrics = evaluate_gate_settings(model, data, torch::stack(settings), first_layers, progress, 0,
                                              significance.enabled() ? &examples : nullptr);
  if (metrics.empty()) return result.cancelled = true, std::vector<HeadEffect>{};
  result.baseline = metrics.front().metric;
  std::vector<DeltaSignificance> tested(targets.size());
  if (significance.enabled()) {
    std::vector<int64_t> tested_settings(targets.size());
    for (size_t i = 0; i < targets.size(); ++i) tested_settings[i] = static_cast<int64_t>(i + 1);
    tested = delta_significance(examples, 0, tested_settings, significance);
  }
  std::vector<HeadEffect> effects;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double metric = metrics[i + 1].metric;
    const double delta = metric - result.baseline;
    effects.push_back({targets[i].layer + 1, targets[i].head + 1, metric, delta,
                       significance.enabled() ? tested[i].holding(delta) : tested[i]});
  }
  return effects;
}

torch::Tensor base_or_all_on(const AttentionModel& model, const torch::Tensor& base_gates) {
  return base_gates.defined() ? base_gates.to(torch::kCPU, torch::kFloat32) : all_heads_on(model.config());
}

}  // namespace

AblationResult ablate_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                            AblationMode mode, const torch::Tensor& base_gates, const ProgressCallback& progress,
                            const std::vector<int64_t>& blocks, const SignificanceOptions& significance) {
  auto result = empty_result(model, model_name, data, mode, significance);
  const auto& config = model.config();
  std::vector<int64_t> layers = blocks;
  if (layers.empty())
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) layers.push_back(layer);
  std::vector<HeadTarget> targets;
  for (const auto layer : layers)
    for (int64_t head = 0; head < config.heads_per_block[layer]; ++head) targets.push_back({layer, head});
  result.heads = evaluate_targets(model, data, base_or_all_on(model, base_gates), targets, progress, result);
  if (result.cancelled || mode != AblationMode::AllButOne) return result;
  size_t next = 0;
  for (const auto layer : layers) {
    HeadEffect best = result.heads[next];
    for (int64_t head = 0; head < config.heads_per_block[layer]; ++head, ++next)
      if (damage(result.metric_name, best.metric, result.heads[next].metric) < 0) best = result.heads[next];
    result.best_per_layer.push_back(best);
  }
  return result;
}

AblationResult keep_chosen_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 const std::vector<HeadEffect>& chosen, const std::string& chosen_on,
                                 const torch::Tensor& base_gates, const ProgressCallback& progress,
                                 const SignificanceOptions& significance) {
  auto result = empty_result(model, model_name, data, AblationMode::AllButOne, significance);
  result.chosen_on = chosen_on;
  const auto& config = model.config();
  std::vector<HeadTarget> targets;
  for (const auto& head : chosen) {
    if (head.layer < 1 || head.layer > config.n_blocks || head.head < 1 ||
        head.head > config.heads_per_block[head.layer - 1])
      throw Error("no head " + std::to_string(head.head) + " in block " + std::to_string(head.layer) + " of " +
                  model_name + " to keep");
    targets.push_back({head.layer - 1, head.head - 1});
  }
  result.heads = evaluate_targets(model, data, base_or_all_on(model, base_gates), targets, progress, result);
  result.best_per_layer = result.heads;
  return result;
}

ResultTable ablation_table(const AblationResult& result, bool every_head) {
  ResultTable table;
  const bool tested = result.significance.enabled();
  table.meta("model", result.model).meta("metric", result.metric_name).meta("baseline", result.baseline);
  table.meta("mode", result.mode == AblationMode::Single ? "single" : "all-but-one");
  if (!result.chosen_on.empty()) table.meta("chosen_on", result.chosen_on);
  add_significance_meta(table, result.significance);
  const bool compared = !result.comparison.compared_text.empty();
  if (compared)
    table.meta("text", result.comparison.text)
        .meta("compare_text", result.comparison.compared_text)
        .meta("compare_baseline", result.comparison.baseline)
        .meta("pearson_r", result.comparison.pearson)
        .meta("spearman_rho", result.comparison.spearman);
  const bool per_head = result.mode == AblationMode::Single || every_head;
  result.names.add_columns(table);
  table.add_column(per_head ? "head" : "best_head", ColumnType::Integer)
      .add_column("metric", ColumnType::Number)
      .add_column("delta", ColumnType::Number);
  if (tested) add_significance_columns(table);
  if (compared) table.add_column("metric_compared", ColumnType::Number).add_column("delta_compared", ColumnType::Number);
  for (const auto& effect : per_head ? result.heads : result.best_per_layer) {
    auto row = result.names.cells(effect.layer - 1);
    append_cells(row, {effect.head, effect.metric, effect.delta});
    if (tested) append_cells(row, significance_cells(effect.significance));
    if (compared) append_cells(row, {effect.compared_metric, effect.compared_delta});
    table.add_row(std::move(row));
  }
  return table;
}

void add_comparison(AblationResult& result, const AblationResult& other, const std::string& text,
                    const std::string& other_text) {
  if (result.mode != AblationMode::Single || other.mode != AblationMode::Single || result.heads.size() != other.heads.size())
    throw Error("comparing ablations across data sets needs the single-head ablation of the same heads on both");
  std::vector<double> here, there;
  for (size_t i = 0; i < result.heads.size(); ++i) {
    auto& head = result.heads[i];
    const auto& same = other.heads[i];
    if (head.layer != same.layer || head.head != same.head)
      throw Error("comparing ablations across data sets needs the same heads in the same order");
    head.compared_metric = same.metric;
    head.compared_delta = same.delta;
    here.push_back(head.delta);
    there.push_back(same.delta);
  }
  result.comparison = {text, other_text, other.baseline, pearson_r(here, there), spearman_rho(here, there)};
}

}  // namespace aw
