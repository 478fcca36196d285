// analysis/core/head_gates.cpp — see head_gates.h.
#include "analysis/core/head_gates.h"

#include "models/checkpoint/checkpoint.h"

#include <torch/torch.h>

namespace aw {

std::vector<std::vector<HeadRef>> request_heads_off(const AnalysisRequest& request) {
  std::vector<const ModelConfig*> configs;
  std::vector<std::string> names;
  for (const auto* loaded : request.models) configs.push_back(&loaded->config), names.push_back(loaded->name);
  if (!request.settings.has_field("heads-off")) return std::vector<std::vector<HeadRef>>(configs.size());
  return resolve_heads_off(parse_heads_off(request.settings.text("heads-off")), configs, names);
}

torch::Tensor request_gates(const AnalysisRequest& request, size_t index) {
  const auto heads = request_heads_off(request).at(index);
  if (heads.empty()) return {};
  const auto& loaded = *request.models.at(index);
  return gates_from_heads(loaded.config, heads).to(loaded.device);
}

torch::Tensor all_heads_on(const ModelConfig& config) { return torch::ones({config.n_blocks, config.max_heads()}); }

torch::Tensor gates_from_heads(const ModelConfig& config, const std::vector<HeadRef>& heads) {
  auto gates = all_heads_on(config);  // [L, H_max]
  auto access = gates.accessor<float, 2>();
  for (const auto& head : heads) access[head.layer][head.head] = 0.0f;
  return gates;
}

torch::Tensor gates_from_flags(const ModelConfig& config, const std::vector<std::vector<bool>>& flags) {
  auto gates = all_heads_on(config);  // [L, H_max]
  auto access = gates.accessor<float, 2>();
  for (size_t layer = 0; layer < flags.size() && static_cast<int64_t>(layer) < gates.size(0); ++layer)
    for (size_t head = 0; head < flags[layer].size() && static_cast<int64_t>(head) < gates.size(1); ++head)
      if (!flags[layer][head]) access[layer][head] = 0.0f;
  return gates;
}

std::vector<std::vector<double>> layer_head_values(const torch::Tensor& values, const std::vector<int64_t>& heads_per_layer) {
  const auto grid = values.to(torch::kCPU, torch::kFloat64).contiguous();
  const auto cells = grid.accessor<double, 2>();
  std::vector<std::vector<double>> out(heads_per_layer.size());
  for (size_t layer = 0; layer < heads_per_layer.size(); ++layer)
    for (int64_t head = 0; head < heads_per_layer[layer]; ++head) out[layer].push_back(cells[static_cast<int64_t>(layer)][head]);
  return out;
}

}  // namespace aw
