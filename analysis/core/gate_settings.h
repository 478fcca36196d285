// analysis/core/gate_settings.h — head gates as a setting. `--heads-off 2.3,4.1` switches heads off
// by their 1-based layer and head; a translation model's heads are addressed by kind and layer within
// the kind ("enc2.3", "dec1.2", "cross1.4"). With several models there is one group per --model,
// separated by ';' ("none": every head on). The window fills the field from its heads panel and every
// table an analysis writes records the setting (heads_off=…), so a run made in the window can be
// repeated exactly from the command line. LibTorch-free: the window formats the text with it.
#pragma once

#include "analysis/core/descriptor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct ModelConfig;  // models/nn/model_config.h

// A head by its attention block and its head in that block, both 0-based: how analyses address it.
struct HeadRef {
  int64_t layer = 0;  // the block (a layer of a one-kind model)
  int64_t head = 0;
};

// One head as the setting names it.
struct HeadOff {
  std::string kind;   // "" for a model with one kind of attention, else enc, dec or cross
  int64_t layer = 0;  // 1-based, counted within its kind
  int64_t head = 0;   // 1-based
};
using HeadsOffGroup = std::vector<HeadOff>;

// The --heads-off field.
SettingField heads_off_field();

// "2.3" or "cross1.4".
std::string head_off_text(const HeadOff& head);
// One model's group: "2.3,4.1", or "none" when it is empty.
std::string heads_off_group_text(const HeadsOffGroup& group);
// Every model's group, joined by ';' ("2.3;none"); "" when no head of any model is off.
std::string heads_off_text(const std::vector<HeadsOffGroup>& groups);

// The groups of a setting's text, as written (checked against no model yet); "" or "none" is one
// empty group. Throws SettingError naming heads-off for an entry that is not [KIND]LAYER.HEAD.
std::vector<HeadsOffGroup> parse_heads_off(const std::string& text);

// The groups for the models of a run, as blocks and heads: one group per model, or a single empty
// group for any number of models (every head on). Throws SettingError naming heads-off, the model and
// the entry for a group count that does not match, a layer or head the model does not have, a kind
// missing on a translation model or given on a one-kind model.
std::vector<std::vector<HeadRef>> resolve_heads_off(const std::vector<HeadsOffGroup>& groups,
                                                    const std::vector<const ModelConfig*>& configs,
                                                    const std::vector<std::string>& names);
// The group that names `heads` (blocks and heads of `config`), as the setting writes them.
HeadsOffGroup heads_off_group(const std::vector<HeadRef>& heads, const ModelConfig& config);

}  // namespace aw
