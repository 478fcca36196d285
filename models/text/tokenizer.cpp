// models/text/tokenizer.cpp — what the tokenizer families share: the default encode_pair and
// decode, the one-token-per-line vocabulary reader, and UTF-8 decoding with the workbench's error message.
#include "models/text/tokenizer.h"

#include "models/text/byte_level_bpe.h"

#include "models/errors.h"
#include "models/json_input.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <unordered_map>
#include <utility>

namespace aw {

Encoding Tokenizer::encode_pair(const std::string& /*text_a*/, const std::string& /*text_b*/) const {
  throw Error(kind() + " tokenizer does not encode sentence pairs");
}

std::string Tokenizer::decode(const std::vector<int64_t>& /*ids*/) const {
  throw Error(kind() + " tokenizer cannot decode");
}

namespace tokenizer_detail {

void TableTokenizer::require_id(int64_t id) const {
  if (id < 0 || id >= vocab_size())
    throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0.." + std::to_string(vocab_size() - 1) + ")");
}

std::string TableTokenizer::token_text(int64_t id) const {
  require_id(id);
  return texts_[static_cast<size_t>(id)];
}

void TableTokenizer::set_tokens(std::vector<std::string> tokens) {
  texts_ = std::move(tokens);
  ids_.clear();
  for (size_t id = 0; id < texts_.size(); ++id) ids_.emplace(texts_[id], static_cast<int64_t>(id));
}

int64_t TableTokenizer::token_id(const std::string& token) const {
  const auto found = ids_.find(token);
  return found == ids_.end() ? -1 : found->second;
}

std::vector<std::string> read_token_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<std::string> tokens;
  std::unordered_map<std::string, size_t> line_of_token;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // written on Windows
    const size_t line_number = tokens.size() + 1;
    require_line_length(path, line_number, line);
    if (line.empty()) fail_in_file(path, "line " + std::to_string(line_number) + ": empty token");
    const auto [previous, inserted] = line_of_token.emplace(line, line_number);
    if (!inserted)
      fail_in_file(path, "line " + std::to_string(line_number) + ": duplicate token " + quoted_excerpt(line) + " (also on line " +
                             std::to_string(previous->second) + ")");
    tokens.push_back(line);
  }
  if (tokens.empty()) fail_in_file(path, "holds no tokens (empty file)");
  return tokens;
}

size_t utf8_sequence_length(const std::string& text, size_t pos) {
  // Well-formed sequences as in the Unicode standard's table 3-7: no overlong forms, no surrogates,
  // nothing above U+10FFFF.
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const size_t left = text.size() - pos;
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (left < length) return 0;
  if (byte(pos + 1) < second_min || byte(pos + 1) > second_max) return 0;
  for (size_t i = 2; i < length; ++i)
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xBF) return 0;
  return length;
}

namespace {

[[noreturn]] void fail_utf8(size_t pos) {
  throw Error("text is not valid UTF-8 (byte offset " + std::to_string(pos) + ")");
}

}  // namespace

void require_utf8(const std::string& text) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = utf8_sequence_length(text, pos);
    if (length == 0) fail_utf8(pos);
    pos += length;
  }
}

std::u32string decode_utf8(const std::string& text) {
  std::u32string code_points;
  code_points.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = utf8_sequence_length(text, pos);
    if (length == 0) fail_utf8(pos);
    const auto lead = static_cast<unsigned char>(text[pos]);
    char32_t code_point = length == 1 ? lead : length == 2 ? (lead & 0x1F) : length == 3 ? (lead & 0x0F) : (lead & 0x07);
    for (size_t i = 1; i < length; ++i) code_point = (code_point << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
    code_points.push_back(code_point);
    pos += length;
  }
  return code_points;
}

void append_utf8(std::string& out, char32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

std::vector<std::string> vocab_spellings(const nlohmann::json& vocab, const std::string& path, const std::string& where,
                                         const std::string& noun) {
  if (!vocab.is_object())
    fail_in_file(path, where + "is not a JSON object of " + noun + " → id (found " + vocab.type_name() + ")");
  if (vocab.empty()) fail_in_file(path, where + "holds no " + noun + "s (empty object)");
  const size_t size = vocab.size();
  std::vector<std::string> spellings(size);
  std::vector<bool> taken(size, false);
  for (const auto& [spelling, value] : vocab.items()) {
    if (!value.is_number_integer())
      fail_in_file(path, where + noun + " " + quoted_excerpt(spelling) + " has id " + json_excerpt(value) + ", not an integer");
    const auto id = value.get<int64_t>();
    if (id < 0 || id >= static_cast<int64_t>(size))
      fail_in_file(path, where + noun + " " + quoted_excerpt(spelling) + " has id " + std::to_string(id) + ", outside 0.." +
                             std::to_string(size - 1) + " (ids must number the " + std::to_string(size) + " " + noun +
                             "s without gaps)");
    if (taken[id])
      fail_in_file(path, where + "id " + std::to_string(id) + " is given to both " + quoted_excerpt(spellings[id]) + " and " +
                             quoted_excerpt(spelling));
    taken[id] = true;
    spellings[id] = spelling;
  }
  return spellings;
}

std::vector<std::string> read_vocab_json(const std::string& path, const std::string& noun) {
  return vocab_spellings(read_untrusted_json(path), path, "", noun);
}

}  // namespace tokenizer_detail
}  // namespace aw
