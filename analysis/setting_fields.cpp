// analysis/setting_fields.cpp — see setting_fields.h.
#include "analysis/setting_fields.h"

namespace aw {

SettingField integer_field(std::string name, std::string label, int64_t default_value, int64_t minimum,
                           int64_t maximum, std::string help, std::string value_name) {
  SettingField field;
  field.name = std::move(name);
  field.kind = FieldKind::Integer;
  field.label = std::move(label);
  field.value_name = std::move(value_name);
  field.help = std::move(help);
  field.default_text = std::to_string(default_value);
  field.minimum = minimum;
  field.maximum = maximum;
  return field;
}

SettingField flag_field(std::string name, std::string label, std::string help) {
  SettingField field;
  field.name = std::move(name);
  field.kind = FieldKind::Flag;
  field.label = std::move(label);
  field.help = std::move(help);
  return field;
}

SettingField choice_field(std::string name, std::string label, std::vector<std::string> choices,
                          std::string default_value, std::string help) {
  SettingField field;
  field.name = std::move(name);
  field.kind = FieldKind::Choice;
  field.label = std::move(label);
  field.help = std::move(help);
  field.default_text = std::move(default_value);
  for (size_t i = 0; i < choices.size(); ++i) field.value_name += (i ? "|" : "") + choices[i];
  field.choices = std::move(choices);
  return field;
}

SettingField text_field(std::string name, std::string label, std::string default_value, std::string help,
                        std::string value_name) {
  SettingField field;
  field.name = std::move(name);
  field.kind = FieldKind::Text;
  field.label = std::move(label);
  field.value_name = std::move(value_name);
  field.help = std::move(help);
  field.default_text = std::move(default_value);
  return field;
}

SettingField path_field(std::string name, std::string label, bool required, std::string help, std::string value_name) {
  SettingField field;
  field.name = std::move(name);
  field.kind = FieldKind::Path;
  field.label = std::move(label);
  field.value_name = std::move(value_name);
  field.help = std::move(help);
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

}  // namespace aw
