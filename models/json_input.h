// models/json_input.h — JSON from files a stranger may have written (config.json, safetensors
// headers, vocab.json, training.json). Nesting deeper than kMaxJsonDepth is refused while parsing,
// before a deep value can exhaust the stack (nlohmann's dump() and any recursive walk recurse per
// level); and every parser failure — bad syntax, a number like 1e400 — becomes one aw::Error naming
// the file, never the library's own exception text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace aw {

constexpr int kMaxJsonDepth = 64;

// Parses `text` read from `path`; `what` names the part in messages ("header", or "" for the whole
// file): "<path>: [<what> ]is not valid JSON (…)". `also` (optional) sees every parse event too.
nlohmann::json parse_untrusted_json(std::string_view text, const std::string& path, const std::string& what = "",
                                    const nlohmann::json::parser_callback_t& also = nullptr);

// A JSON value as it appears in a message, cut short so a hostile file cannot flood it.
std::string json_excerpt(const nlohmann::json& value);

// The whole file at `path`, parsed as above; "<path>: cannot be read" when it cannot be opened.
nlohmann::json read_untrusted_json(const std::string& path);

}  // namespace aw
