// analysis/csv_field.h — one CSV field as RFC 4180 wants it: quoted when it holds a comma, a quote or
// a line break, quotes doubled. Shared by every analysis that writes words or labels into a CSV.
#pragma once

#include <cstdio>
#include <string>

namespace aw {

inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A number in a CSV cell: 6 significant digits, as the LAMA and compare tables print them.
inline std::string csv_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace aw
