// analysis/core/gate_settings.cpp — see gate_settings.h.
#include "analysis/core/gate_settings.h"

#include "analysis/core/setting_fields.h"
#include "models/attention_kind.h"
#include "models/nn/model_config.h"
#include "models/parse_number.h"

#include <cctype>

namespace aw {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

HeadOff parse_head(const std::string& entry) {
  HeadOff head;
  std::string rest = entry;
  for (const auto kind : kAttentionKinds) {
    const auto name = to_string(kind);
    if (rest.rfind(name, 0) == 0) {
      head.kind = name;
      rest = rest.substr(name.size());
      break;
    }
  }
  const auto dot = rest.find('.');
  const bool parsed = dot != std::string::npos && parse_integer(rest.substr(0, dot), head.layer) &&
                      parse_integer(rest.substr(dot + 1), head.head) && head.layer >= 1 && head.head >= 1;
  if (!parsed)
    throw SettingError("heads-off", "expects LAYER.HEAD entries counted from 1 (2.3; enc2.3, dec1.2 or cross1.4 for "
                                    "a translation model), got '" + entry + "'");
  return head;
}

}  // namespace

SettingField heads_off_field() {
  auto field = text_field("heads-off", "Heads off", "",
                          "heads switched off while it runs: LAYER.HEAD, comma-separated (2.3,4.1; enc2.3, dec1.2, "
                          "cross1.4 for a translation model); one group per --model, separated by ';' (none: every "
                          "head on)",
                          "LIST");
  return field;
}

std::string head_off_text(const HeadOff& head) {
  return head.kind + std::to_string(head.layer) + "." + std::to_string(head.head);
}

std::string heads_off_group_text(const HeadsOffGroup& group) {
  if (group.empty()) return "none";
  std::string text;
  for (const auto& head : group) text += (text.empty() ? "" : ",") + head_off_text(head);
  return text;
}

std::string heads_off_text(const std::vector<HeadsOffGroup>& groups) {
  bool any = false;
  for (const auto& group : groups) any = any || !group.empty();
  if (!any) return {};
  std::string text;
  for (size_t i = 0; i < groups.size(); ++i) text += (i ? ";" : "") + heads_off_group_text(groups[i]);
  return text;
}

std::vector<HeadsOffGroup> parse_heads_off(const std::string& text) {
  std::vector<HeadsOffGroup> groups;
  size_t start = 0;
  while (true) {
    const auto end = text.find(';', start);
    const auto group_text = trimmed(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    HeadsOffGroup group;
    if (!group_text.empty() && group_text != "none")
      for (const auto& entry : split_list(group_text)) {
        const auto head = trimmed(entry);
        if (!head.empty()) group.push_back(parse_head(head));
      }
    groups.push_back(std::move(group));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return groups;
}

std::vector<std::vector<HeadRef>> resolve_heads_off(const std::vector<HeadsOffGroup>& groups,
                                                    const std::vector<const ModelConfig*>& configs,
                                                    const std::vector<std::string>& names) {
  std::vector<std::vector<HeadRef>> resolved(configs.size());
  const bool all_on = groups.size() == 1 && groups.front().empty();
  if (all_on) return resolved;
  if (groups.size() != configs.size())
    throw SettingError("heads-off", "has " + std::to_string(groups.size()) + " group" + (groups.size() == 1 ? "" : "s") +
                                        " for " + std::to_string(configs.size()) + " model" +
                                        (configs.size() == 1 ? "" : "s") +
                                        ": give one per --model, separated by ';' (none: every head on)");
  for (size_t m = 0; m < configs.size(); ++m) {
    const auto& config = *configs[m];
    const auto& name = names.at(m);
    for (const auto& head : groups[m]) {
      const auto entry = head_off_text(head);
      const auto refuse = [&](const std::string& why) { throw SettingError("heads-off", entry + ": " + why); };
      if (config.n_blocks == 0) refuse(name + " has no attention heads");
      int64_t block = -1;
      if (config.is_translation()) {
        if (head.kind.empty())
          refuse(name + " is a translation model: name the attention (enc" + entry + ", dec" + entry + " or cross" +
                 entry + ")");
        const auto kind = parse_attention_kind(head.kind);
        block = config.block_index(*kind, head.layer - 1);
        if (block < 0) {
          int64_t layers = 0;
          for (int64_t b = 0; b < config.n_blocks; ++b) layers += config.attention_block(b).kind == *kind ? 1 : 0;
          refuse(name + " has " + std::to_string(layers) + " " + head.kind + " layer" + (layers == 1 ? "" : "s"));
        }
      } else {
        if (!head.kind.empty())
          refuse(name + " has one kind of attention: write " + std::to_string(head.layer) + "." +
                 std::to_string(head.head));
        if (head.layer > config.n_blocks)
          refuse(name + " has " + std::to_string(config.n_blocks) + " layer" + (config.n_blocks == 1 ? "" : "s"));
        block = head.layer - 1;
      }
      const auto heads = config.heads_per_block.at(block);
      if (head.head > heads)
        refuse((head.kind.empty() ? "layer " : head.kind + " layer ") + std::to_string(head.layer) + " of " + name +
               " has " + std::to_string(heads) + " head" + (heads == 1 ? "" : "s"));
      resolved[m].push_back({block, head.head - 1});
    }
  }
  return resolved;
}

HeadsOffGroup heads_off_group(const std::vector<HeadRef>& heads, const ModelConfig& config) {
  HeadsOffGroup group;
  for (const auto& head : heads) {
    const auto place = config.attention_block(head.layer);
    if (config.is_translation())
      group.push_back({to_string(place.kind), place.layer + 1, head.head + 1});
    else
      group.push_back({"", head.layer + 1, head.head + 1});
  }
  return group;
}

}  // namespace aw
