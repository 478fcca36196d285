// analysis/head_removal.cpp — see head_removal.h.
#include "analysis/head_removal.h"

#include "models/errors.h"
#include "models/nn/transformer.h"

#include <torch/torch.h>

#include <set>
#include <sstream>

namespace aw {
namespace {

std::vector<std::string> split_name(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream stream(name);
  for (std::string part; std::getline(stream, part, '.');) parts.push_back(part);
  return parts;
}

}  // namespace

std::shared_ptr<AttentionModel> remove_heads(AttentionModel& model, const std::vector<HeadRef>& heads) {
  auto config = model.config();
  const auto family = config.family;
  if (family != ModelFamily::TransformerLm && family != ModelFamily::BetSf && family != ModelFamily::BetSg)
    throw Error("real pruning supports the native transformer_lm, bet_sf and bet_sg models, not " +
                config.family_name());
  std::vector<std::set<int64_t>> removed(config.n_layers);
  for (const auto& head : heads) {
    if (head.layer < 0 || head.layer >= config.n_layers || head.head < 0 || head.head >= config.heads_per_layer[head.layer])
      throw Error("no head " + std::to_string(head.head + 1) + " in layer " + std::to_string(head.layer + 1));
    if (!removed[head.layer].insert(head.head).second)
      throw Error("head " + std::to_string(head.head + 1) + " of layer " + std::to_string(head.layer + 1) +
                  " is listed twice");
  }
  // Indices kept per layer: heads, and the rows/columns of their d_head-wide slices.
  std::vector<torch::Tensor> kept_heads(config.n_layers), kept_units(config.n_layers);
  for (int64_t layer = 0; layer < config.n_layers; ++layer) {
    std::vector<int64_t> head_index, unit_index;
    for (int64_t head = 0; head < config.heads_per_layer[layer]; ++head) {
      if (removed[layer].count(head)) continue;
      head_index.push_back(head);
      for (int64_t unit = 0; unit < config.d_head; ++unit) unit_index.push_back(head * config.d_head + unit);
    }
    kept_heads[layer] = torch::tensor(head_index, torch::kLong);
    kept_units[layer] = torch::tensor(unit_index, torch::kLong);
    config.heads_per_layer[layer] = static_cast<int64_t>(head_index.size());
  }

  auto pruned = make_transformer(config, /*initialise=*/false);
  const auto device = model.module().parameters().front().device();
  pruned->to(device);
  const auto source = model.module().named_parameters();
  torch::NoGradGuard no_grad;
  for (auto& item : pruned->named_parameters()) {
    auto value = source[item.key()];
    const auto parts = split_name(item.key());  // layers.<l>.attn.<q|k|v|o|bird_eye>[.weight|.bias]
    if (parts.size() >= 4 && parts[0] == "layers" && parts[2] == "attn") {
      const int64_t layer = std::stoll(parts[1]);
      const auto units = kept_units[layer].to(device);
      if (parts[3] == "bird_eye") value = value.index_select(0, kept_heads[layer].to(device));
      else if (parts[3] == "o" && parts.size() == 5 && parts[4] == "weight") value = value.index_select(1, units);
      else if (parts[3] == "q" || parts[3] == "k" || parts[3] == "v") value = value.index_select(0, units);
    }
    item.value().copy_(value);
  }
  pruned->eval();
  return pruned;
}

}  // namespace aw
