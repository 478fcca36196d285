// analysis/core/attention_blocks.cpp — see attention_blocks.h.
#include "analysis/core/attention_blocks.h"

#include "analysis/core/setting_fields.h"
#include "models/nn/model_config.h"

namespace aw {

void BlockNames::add_columns(ResultTable& table) const {
  if (with_kind) table.add_column("kind", ColumnType::Text);
  table.add_column("layer", ColumnType::Integer);
}

std::vector<Cell> BlockNames::cells(int64_t block) const {
  if (with_kind) return {kind.at(block), layer.at(block)};
  return {layer.at(block)};
}

BlockNames block_names(const ModelConfig& config) {
  BlockNames names;
  names.with_kind = config.is_translation();
  for (int64_t block = 0; block < config.n_blocks; ++block) {
    const auto position = config.attention_block(block);
    names.kind.push_back(to_string(position.kind));
    names.layer.push_back(names.with_kind ? position.layer + 1 : block + 1);
  }
  return names;
}

std::vector<int64_t> selected_blocks(const ModelConfig& config, const std::string& attention,
                                     const std::string& model_name) {
  const auto kind = parse_attention_kind(attention);  // nothing for "all"
  std::vector<int64_t> blocks;
  for (int64_t block = 0; block < config.n_blocks; ++block)
    if (attention == "all" || config.attention_block(block).kind == kind) blocks.push_back(block);
  if (blocks.empty()) {
    std::string kinds;
    for (const auto kind : config.attention_kinds()) kinds += (kinds.empty() ? "" : ", ") + to_string(kind);
    throw SettingError("attention", attention + ": " + model_name + " has no " + attention + " attention (a " +
                                        config.family_name() + " model has " + kinds + " attention only)");
  }
  return blocks;
}

SettingField attention_field() {
  std::vector<std::string> choices{"all"};
  for (const auto kind : kAttentionKinds) choices.push_back(to_string(kind));
  auto field = choice_field("attention", "Attention", choices, "all",
                            "which attention's heads: encoder self (enc), decoder self (dec), cross, or all");
  field.applies_to = kTranslationModels;  // the others have one kind of attention
  return field;
}

}  // namespace aw
