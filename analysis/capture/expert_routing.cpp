// analysis/capture/expert_routing.cpp — the experts of each token (see expert_routing.h).
#include "analysis/capture/expert_routing.h"

#include "analysis/capture/attention_capture.h"
#include "models/errors.h"
#include "models/nn/mixture_of_experts.h"

#include <torch/torch.h>

namespace aw {

std::vector<LayerRouting> route_tokens(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                                       const ForwardOptions& forward) {
  const auto& config = model.config();
  if (config.moe.experts == 0)
    throw Error(model_name + " is a " + config.family_name() +
                " model without experts; expert routing needs a mixture of experts (mixtral, qwen3_moe, olmoe, gpt_oss)");
  std::vector<LayerRouting> routing;
  ForwardOptions options = forward;
  options.capture = CaptureMode::None;
  // Each sparse layer's logits, tile by tile of tokens where the feed-forward tiles (a long text).
  options.hooks.add(HookPoint::Router, -1, [&](const HookSite& site, const torch::Tensor& logits) {
    const auto choice = choose_experts(config.moe, logits.select(0, 0));
    if (routing.empty() || routing.back().layer != site.layer) routing.push_back({site.layer, {}, {}});
    auto& layer = routing.back();
    const auto experts = choice.experts.to(torch::kCPU), weights = choice.weights.to(torch::kCPU);
    layer.experts = layer.experts.defined() ? torch::cat({layer.experts, experts}) : experts;
    layer.weights = layer.weights.defined() ? torch::cat({layer.weights, weights}) : weights;
    return torch::Tensor();
  });
  c10::InferenceMode inference;
  model.forward(encoding_input(encoding), options);
  return routing;
}

ResultTable routing_table(const std::vector<LayerRouting>& routing, const Encoding& encoding,
                          const std::string& model_name) {
  const int64_t k = routing.empty() ? 0 : routing.front().experts.size(1);
  ResultTable table;
  table.meta("model", model_name).meta("top_k", k);
  table.add_column("layer", ColumnType::Integer).add_column("position", ColumnType::Integer)
      .add_column("token", ColumnType::Text);
  for (int64_t slot = 1; slot <= k; ++slot) table.add_column("expert_" + std::to_string(slot), ColumnType::Integer);
  for (int64_t slot = 1; slot <= k; ++slot) table.add_column("weight_" + std::to_string(slot), ColumnType::Number);
  for (const auto& layer : routing) {
    const auto experts = layer.experts.accessor<int64_t, 2>();
    const auto weights = layer.weights.accessor<float, 2>();
    for (int64_t position = 0; position < layer.experts.size(0); ++position) {
      std::vector<Cell> row = {Cell(layer.layer + 1), Cell(position), Cell(encoding.tokens.at(position))};
      for (int64_t slot = 0; slot < k; ++slot) row.emplace_back(experts[position][slot]);
      for (int64_t slot = 0; slot < k; ++slot) row.emplace_back(static_cast<double>(weights[position][slot]));
      table.add_row(std::move(row));
    }
  }
  return table;
}

}  // namespace aw
