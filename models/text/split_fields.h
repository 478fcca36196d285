// models/text/split_fields.h — a line cut at every separator, empty fields kept ("a,,b" → a, "", b),
// for the line-based files read field by field (CoNLL-U, order CSVs).
#pragma once

#include <string>
#include <vector>

namespace aw {

inline std::vector<std::string> split_fields(const std::string& line, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t found; (found = line.find(separator, start)) != std::string::npos; start = found + 1)
    fields.push_back(line.substr(start, found - start));
  fields.push_back(line.substr(start));
  return fields;
}

}  // namespace aw
