// analysis/core/setting_fields.cpp — see setting_fields.h.
#include "analysis/core/setting_fields.h"


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

}  // namespace aw
