// models/json_input.cpp — see json_input.h.
#include "models/json_input.h"

#include "models/errors.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace aw {
namespace {

struct TooDeep {};  // thrown out of the parser callback: parsing stops at the first level too deep

// "line L, column C" of a byte offset (1-based, as editors count).
std::string position_of(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

nlohmann::json parse_untrusted_json(std::string_view text, const std::string& path, const std::string& what,
                                    const nlohmann::json::parser_callback_t& also) {
  const std::string subject = path + ": " + (what.empty() ? "" : what + " ") + "is not valid JSON (";
  const nlohmann::json::parser_callback_t guard = [&](int depth, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return also ? also(depth, event, parsed) : true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), guard);
  } catch (const TooDeep&) {
    throw Error(subject + "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels)");
  } catch (const nlohmann::json::parse_error& e) {
    const size_t byte = std::min<size_t>(e.byte, text.size());  // the parser counts one past the end at EOF
    throw Error(subject + "parse error at " + position_of(text, e.byte) + ", byte " + std::to_string(byte) + " of " +
                std::to_string(text.size()) + ")");
  } catch (const nlohmann::json::out_of_range&) {
    throw Error(subject + "a number is outside the range of a 64-bit float)");
  } catch (const nlohmann::json::exception&) {
    throw Error(subject + "unreadable value)");
  }
}

std::string json_excerpt(const nlohmann::json& value) {
  constexpr size_t kMaxChars = 60;
  auto text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() <= kMaxChars ? text : text.substr(0, kMaxChars) + "...";
}

nlohmann::json read_untrusted_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_untrusted_json(text, path);
}

}  // namespace aw
