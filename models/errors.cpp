// models/errors.cpp — helpers that build error messages.
#include "models/errors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace aw {

std::string quoted_excerpt(std::string_view text) { return "'" + one_line(text, 100) + "'"; }

std::string one_line(std::string_view text, size_t max_bytes) {
  size_t end = std::min(text.size(), max_bytes);
  // Back up to the first byte of a UTF-8 sequence, so the cut never splits a character.
  if (end < text.size())
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::string out;
  for (size_t i = 0; i < end; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') out += "\\n";
    else if (byte == '\t') out += "\\t";
    else if (byte == '\r') out += "\\r";
    else if (byte < 0x20 || byte == 0x7F) {
      constexpr const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out + (end < text.size() ? "..." : "");
}

void require_line_length(const std::string& path, size_t line_number, const std::string& line) {
  if (line.size() > kMaxLineBytes)
    fail_in_file(path, "line " + std::to_string(line_number) + " is " + std::to_string(line.size()) +
                           " bytes long, more than the 1 MiB one line may hold");
}

std::string system_error() { return std::strerror(errno); }

void fail_in_file(const std::string& path, const std::string& message) {
  throw Error(path + ": " + message);
}

}  // namespace aw
