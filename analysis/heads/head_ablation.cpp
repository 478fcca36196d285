// analysis/heads/head_ablation.cpp — see head_ablation.h.
#include "analysis/heads/head_ablation.h"

#include "analysis/statistics/significance.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <sstream>

namespace aw {

AblationResult ablate_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                            AblationMode mode, const torch::Tensor& base_gates, const ProgressCallback& progress,
                            const std::vector<int64_t>& blocks, const SignificanceOptions& significance) {
  const auto& config = model.config();
  require_attention_heads(config, model_name, "ablation");
  const auto base = base_gates.defined() ? base_gates.to(torch::kCPU, torch::kFloat32) : all_heads_on(config);
  AblationResult result;
  result.model = model_name;
  result.metric_name = data.metric_name();
  result.mode = mode;
  result.names = block_names(config);
  result.significance = significance;
  std::vector<int64_t> layers = blocks;
  if (layers.empty())
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) layers.push_back(layer);

  // One pass over the data: the baseline (first layer L: nothing differs), then each layer's
  // settings from that layer up; the lower layers are computed once per batch for all of them.
  std::vector<torch::Tensor> settings{base};
  std::vector<int64_t> first_layers{config.n_blocks};
  for (const auto layer : layers)
    for (int64_t head = 0; head < config.heads_per_block[layer]; ++head) {
      auto gates = base.clone();
      if (mode == AblationMode::Single) {
        gates[layer][head] = 0.0;
      } else {
        gates[layer].zero_();
        gates[layer][head] = base[layer][head];
      }
      settings.push_back(gates);
      first_layers.push_back(layer);
    }
  ExampleScores examples;
  const auto metrics = evaluate_gate_settings(model, data, torch::stack(settings), first_layers, progress, 0,
                                              significance.enabled() ? &examples : nullptr);
  if (metrics.empty()) return result.cancelled = true, result;
  result.baseline = metrics.front().metric;
  std::vector<DeltaSignificance> tested(metrics.size() - 1);
  if (significance.enabled()) {
    std::vector<int64_t> heads(metrics.size() - 1);
    for (size_t i = 0; i < heads.size(); ++i) heads[i] = static_cast<int64_t>(i + 1);
    tested = delta_significance(examples, 0, heads, significance);
  }

  size_t next = 1;
  for (const auto layer : layers) {
    HeadEffect best;
    for (int64_t head = 0; head < config.heads_per_block[layer]; ++head) {
      const double metric = metrics[next].metric;
      const HeadEffect effect{layer + 1, head + 1, metric, metric - result.baseline,
                              significance.enabled() ? tested[next - 1].holding(metric - result.baseline) : tested[next - 1]};
      ++next;
      result.heads.push_back(effect);
      if (head == 0 || damage(result.metric_name, best.metric, effect.metric) < 0) best = effect;
    }
    if (mode == AblationMode::AllButOne) result.best_per_layer.push_back(best);
  }
  return result;
}

ResultTable ablation_table(const AblationResult& result, bool every_head) {
  ResultTable table;
  const bool tested = result.significance.enabled();
  table.meta("model", result.model).meta("metric", result.metric_name).meta("baseline", result.baseline);
  table.meta("mode", result.mode == AblationMode::Single ? "single" : "all-but-one");
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
