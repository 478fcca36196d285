// models/parse_number.h — whole-string number parsing for options, settings and config values:
// "12" parses, "12x", "", " 12" and out-of-range values do not (callers word their own errors).
#pragma once

#include <cstdint>
#include <string>

namespace aw {

inline bool parse_integer(const std::string& text, int64_t& value) {
  size_t parsed = 0;
  try {
    value = std::stoll(text, &parsed);
  } catch (const std::exception&) {
    return false;
  }
  return parsed != 0 && parsed == text.size() && text.front() != ' ';
}

inline bool parse_real(const std::string& text, double& value) {
  size_t parsed = 0;
  try {
    value = std::stod(text, &parsed);
  } catch (const std::exception&) {
    return false;
  }
  return parsed != 0 && parsed == text.size() && text.front() != ' ';
}

}  // namespace aw
