// analysis/heads/head_removal.cpp — see head_removal.h.
#include "analysis/heads/head_removal.h"

#include "models/checkpoint/checkpoint.h"
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

// The attention block a parameter belongs to, and the rest of its name after the attention module
// ("q.weight", "bird_eye"); block −1 for parameters outside attention. Language models name them
// layers.<l>.attn.*, transformer_mt encoder.<l>.attn.*, decoder.<l>.self_attn.* and
// decoder.<l>.cross_attn.*.
std::pair<int64_t, std::vector<std::string>> attention_parameter(const ModelConfig& config,
                                                                 const std::vector<std::string>& parts) {
  if (parts.size() < 4) return {-1, {}};
  const std::vector<std::string> rest(parts.begin() + 3, parts.end());
  const auto layer = std::stoll(parts[1]);
  if (parts[0] == "layers" && parts[2] == "attn") return {layer, rest};
  if (parts[0] == "encoder" && parts[2] == "attn") return {config.block_index(AttentionKind::Encoder, layer), rest};
  if (parts[0] == "decoder" && parts[2] == "self_attn") return {config.block_index(AttentionKind::Decoder, layer), rest};
  if (parts[0] == "decoder" && parts[2] == "cross_attn") return {config.block_index(AttentionKind::Cross, layer), rest};
  return {-1, {}};
}

// "a, b and c": the families of `format` whose heads real pruning removes.
std::string pruned_families(CheckpointFormat format) {
  std::vector<std::string> names;
  for (const auto family : all_values<ModelFamily>()) {
    const auto traits = family_traits(family);
    if (traits.real_pruning && traits.format == format) names.push_back(to_string(family));
  }
  std::string joined;
  for (size_t index = 0; index < names.size(); ++index)
    joined += (index == 0 ? "" : index + 1 == names.size() ? " and " : ", ") + names[index];
  return joined;
}

}  // namespace

std::shared_ptr<AttentionModel> remove_heads(AttentionModel& model, const std::vector<HeadRef>& heads) {
  auto config = model.config();
  if (!config.real_pruning || config.decoder.qk_norm == QkNorm::Whole)
    throw Error("real pruning supports the native " + pruned_families(CheckpointFormat::Native) + " models and the " +
                pruned_families(CheckpointFormat::HuggingFace) + " families, not " + config.family_name() +
                (config.decoder.qk_norm == QkNorm::Whole
                     ? " (its query and key norms span every head of a layer: removing one changes the others)"
                 : config.decoder.attention_sinks ? " (its heads' learned sinks are not written back by a pruned save)"
                                                  : ""));
  std::vector<std::set<int64_t>> removed(config.n_blocks);
  for (const auto& head : heads) {
    if (head.layer < 0 || head.layer >= config.n_blocks || head.head < 0 || head.head >= config.heads_per_block[head.layer])
      throw Error("no head " + std::to_string(head.head + 1) + " in layer " + std::to_string(head.layer + 1));
    if (!removed[head.layer].insert(head.head).second)
      throw Error("head " + std::to_string(head.head + 1) + " of layer " + std::to_string(head.layer + 1) +
                  " is listed twice");
  }
  // Indices kept per layer: heads, and the rows/columns of their d_head-wide slices. Under grouped-
  // query attention a key/value head stays while any of its query heads does (kept_kv_units).
  std::vector<torch::Tensor> kept_heads(config.n_blocks), kept_units(config.n_blocks), kept_kv_units(config.n_blocks);
  auto& groups = config.decoder.query_groups;
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    const auto width = config.head_width(layer);
    auto units_of = [&](const std::vector<int64_t>& heads_kept) {
      std::vector<int64_t> units;
      for (const auto head : heads_kept)
        for (int64_t unit = 0; unit < width; ++unit) units.push_back(head * width + unit);
      return torch::tensor(units, torch::kLong);
    };
    std::vector<int64_t> head_index;
    for (int64_t head = 0; head < config.heads_per_block[layer]; ++head)
      if (!removed[layer].count(head)) head_index.push_back(head);
    if (!groups.empty()) {
      std::vector<int64_t> kv_kept, sizes_kept;
      int64_t first = 0;  // the group's first query head
      for (int64_t group = 0; group < static_cast<int64_t>(groups[layer].size()); ++group) {
        int64_t left = 0;
        for (int64_t head = first; head < first + groups[layer][group]; ++head) left += removed[layer].count(head) ? 0 : 1;
        if (left > 0) {
          kv_kept.push_back(group);
          sizes_kept.push_back(left);
        }
        first += groups[layer][group];
      }
      groups[layer] = sizes_kept;
      kept_kv_units[layer] = units_of(kv_kept);
    } else {
      kept_kv_units[layer] = units_of(head_index);
    }
    kept_heads[layer] = torch::tensor(head_index, torch::kLong);
    kept_units[layer] = units_of(head_index);
    config.heads_per_block[layer] = static_cast<int64_t>(head_index.size());
  }

  auto pruned = create_model(config, /*initialise=*/false);
  auto& module = pruned->module();
  const auto device = model.module().parameters().front().device();
  module.to(device);
  const auto source = model.module().named_parameters();
  torch::NoGradGuard no_grad;
  for (auto& item : module.named_parameters()) {
    auto value = source[item.key()];
    const auto [layer, rest] = attention_parameter(config, split_name(item.key()));  // <q|k|v|o|bird_eye>[.weight|.bias]
    if (layer >= 0) {
      const auto units = kept_units[layer].to(device);
      if (rest[0] == "bird_eye") value = value.index_select(0, kept_heads[layer].to(device));
      else if (rest[0] == "o" && rest.size() == 2 && rest[1] == "weight") value = value.index_select(1, units);
      else if (rest[0] == "q") value = value.index_select(0, units);
      else if (rest[0] == "k" || rest[0] == "v") value = value.index_select(0, kept_kv_units[layer].to(device));
    }
    item.value().copy_(value);
  }
  module.eval();
  return pruned;
}

}  // namespace aw
