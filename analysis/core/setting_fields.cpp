// analysis/core/setting_fields.cpp — see setting_fields.h.
#include "analysis/core/setting_fields.h"

#include <limits>

namespace aw {

namespace {

SettingField base_field(std::string name, FieldKind kind, std::string label, std::string help,
                        std::string value_name = "") {
  SettingField field;
  field.name = std::move(name);
  field.kind = kind;
  field.label = std::move(label);
  field.help = std::move(help);
  field.value_name = std::move(value_name);
  return field;
}

}  // namespace

SettingField integer_field(std::string name, std::string label, int64_t default_value, int64_t minimum,
                           int64_t maximum, std::string help, std::string value_name) {
  auto field = base_field(std::move(name), FieldKind::Integer, std::move(label), std::move(help), std::move(value_name));
  field.default_text = std::to_string(default_value);
  field.minimum = minimum;
  field.maximum = maximum;
  return field;
}

SettingField flag_field(std::string name, std::string label, std::string help) {
  return base_field(std::move(name), FieldKind::Flag, std::move(label), std::move(help));
}

SettingField choice_field(std::string name, std::string label, std::vector<std::string> choices,
                          std::string default_value, std::string help) {
  std::string value_name;
  for (size_t i = 0; i < choices.size(); ++i) value_name += (i ? "|" : "") + choices[i];
  auto field = base_field(std::move(name), FieldKind::Choice, std::move(label), std::move(help), value_name);
  field.default_text = std::move(default_value);
  field.choices = std::move(choices);
  return field;
}

SettingField text_field(std::string name, std::string label, std::string default_value, std::string help,
                        std::string value_name) {
  auto field = base_field(std::move(name), FieldKind::Text, std::move(label), std::move(help), std::move(value_name));
  field.default_text = std::move(default_value);
  return field;
}

SettingField path_field(std::string name, std::string label, bool required, std::string help, std::string value_name) {
  auto field = base_field(std::move(name), FieldKind::Path, std::move(label), std::move(help), std::move(value_name));
  field.required = required;
  return field;
}

std::vector<SettingField> corpus_fields(int64_t default_batch) {
  auto window = integer_field("window", "Window", 0, 2, 1 << 20,
                              "tokens per window (language models; default min(128, the model's positions))");
  window.default_text.clear();  // the model decides
  return {path_field("text", "Data", true, "text file (language models) or label<TAB>text lines (classifiers)"),
          window, integer_field("batch", "Batch", default_batch, 1, 1 << 20, "windows or examples per forward", "B")};
}

std::vector<SettingField> translation_metric_fields() {
  return {choice_field("metric", "Metric", {"loss", "bleu"}, "loss",
                       "translation models: perplexity of the reference translations (loss) or corpus BLEU of "
                       "the model's own translations (bleu)"),
          beam_field("translation models with --metric bleu: beam size (1 = greedy)")};
}

std::vector<SettingField> significance_fields() {
  return {integer_field("bootstrap", "Bootstrap", 1000, 0, 1000000,
                        "paired-bootstrap resamples of the examples for intervals and p-values (0 = none)", "B"),
          integer_field("bootstrap-seed", "Bootstrap seed", 1, 0, std::numeric_limits<int64_t>::max(),
                        "the seed of the bootstrap's resampling", "S"),
          choice_field("correction", "Correction", {"holm", "bh"}, "holm",
                       "multiple-comparison correction of the p-values: Holm (family-wise) or Benjamini–Hochberg (bh)")};
}

SettingField beam_field(std::string help) { return integer_field("beam", "Beam", 4, 1, 64, std::move(help)); }

}  // namespace aw
