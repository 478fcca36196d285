// analysis/core/setting_fields.h — short constructors for setting fields, so a descriptor lists its
// settings in a few lines (the fields many analyses share: shared_settings.h).
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

}  // namespace aw
