// analysis/heads/head_ablation.cpp — see head_ablation.h.
#include "analysis/heads/head_ablation.h"

#include "analysis/statistics/significance.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <sstream>

namespace aw {

torch::Tensor all_heads_on(const ModelConfig& config) { return torch::ones({config.n_blocks, config.max_heads()}); }

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
      const HeadEffect effect{layer + 1, head + 1, metric, metric - result.baseline, tested[next - 1]};
      ++next;
      result.heads.push_back(effect);
      if (head == 0 || damage(result.metric_name, best.metric, effect.metric) < 0) best = effect;
    }
    if (mode == AblationMode::AllButOne) result.best_per_layer.push_back(best);
  }
  return result;
}

std::string ablation_csv(const AblationResult& result, bool every_head) {
  std::ostringstream csv;
  csv.precision(6);
  const bool tested = result.significance.enabled();
  csv << "# model=" << result.model << ", metric=" << result.metric_name << ", baseline=" << result.baseline
      << ", mode=" << (result.mode == AblationMode::Single ? "single" : "all-but-one");
  if (tested) csv << ", " << significance_description(result.significance);
  const bool compared = !result.comparison.compared_text.empty();
  if (compared)
    csv << ", text=" << result.comparison.text << ", compare_text=" << result.comparison.compared_text
        << ", compare_baseline=" << result.comparison.baseline << ", pearson_r=" << result.comparison.pearson
        << ", spearman_rho=" << result.comparison.spearman;
  csv << "\n";
  const bool per_head = result.mode == AblationMode::Single || every_head;
  csv << result.names.header() << (per_head ? ",head,metric,delta" : ",best_head,metric,delta")
      << (tested ? "," + significance_header() : "") << (compared ? ",metric_compared,delta_compared" : "") << "\n";
  for (const auto& row : per_head ? result.heads : result.best_per_layer) {
    csv << result.names.columns(row.layer - 1) << "," << row.head << "," << row.metric << "," << row.delta;
    if (tested) csv << "," << significance_columns(row.significance);
    if (compared) csv << "," << row.compared_metric << "," << row.compared_delta;
    csv << "\n";
  }
  return csv.str();
}

nlohmann::json ablation_json(const AblationResult& result) {
  auto rows = [&](const std::vector<HeadEffect>& effects) {
    auto array = nlohmann::json::array();
    for (const auto& e : effects) {
      auto row = result.names.position(e.layer - 1);
      row.update({{"head", e.head}, {"metric", e.metric}, {"delta", e.delta}});
      if (result.significance.enabled()) row.update(significance_json(e.significance));
      if (!result.comparison.compared_text.empty())
        row.update({{"metric_compared", e.compared_metric}, {"delta_compared", e.compared_delta}});
      array.push_back(row);
    }
    return array;
  };
  nlohmann::json json{{"model", result.model},
                      {"metric", result.metric_name},
                      {"mode", result.mode == AblationMode::Single ? "single" : "all-but-one"},
                      {"baseline", result.baseline},
                      {"heads", rows(result.heads)},
                      {"best_per_layer", rows(result.best_per_layer)},
                      {"cancelled", result.cancelled},
                      {"bootstrap", significance_settings_json(result.significance)}};
  if (!result.comparison.compared_text.empty())
    json["comparison"] = {{"text", result.comparison.text},
                          {"compared_text", result.comparison.compared_text},
                          {"baseline", result.comparison.baseline},
                          {"pearson_r", result.comparison.pearson},
                          {"spearman_rho", result.comparison.spearman}};
  return json;
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
