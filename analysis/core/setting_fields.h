// analysis/core/setting_fields.h — the setting fields analyses share (the data file, window, batch) and
// short constructors for the rest, so a descriptor lists its settings in a few lines.
#pragma once

#include "analysis/core/descriptor.h"

#include <string>
#include <vector>

namespace aw {

SettingField integer_field(std::string name, std::string label, int64_t default_value, int64_t minimum,
                           int64_t maximum, std::string help, std::string value_name = "N");
SettingField flag_field(std::string name, std::string label, std::string help);
SettingField choice_field(std::string name, std::string label, std::vector<std::string> choices,
                          std::string default_value, std::string help);
SettingField text_field(std::string name, std::string label, std::string default_value, std::string help,
                        std::string value_name);
SettingField path_field(std::string name, std::string label, bool required, std::string help,
                        std::string value_name = "FILE");

// --text FILE (required), --window N (default: min(128, the model's positions)), --batch B.
std::vector<SettingField> corpus_fields(int64_t default_batch = 8);

// --metric loss|bleu (translation models: perplexity of the references, or corpus BLEU of the
// model's translations) and --beam N, the beam of those translations.
std::vector<SettingField> translation_metric_fields();
SettingField beam_field(std::string help);

// --bootstrap B (default 1000, 0 = off), --bootstrap-seed S (default 1), --correction holm|bh: the
// paired bootstrap of analyses that compare gate settings (analysis/statistics/delta_significance.h).
std::vector<SettingField> significance_fields();

}  // namespace aw
