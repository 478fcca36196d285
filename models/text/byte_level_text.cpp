// models/text/byte_level_text.cpp — GPT-2's byte ↔ symbol table and the text of byte-level tokens
// (see byte_level_text.h).
#include "models/text/byte_level_text.h"

#include "models/text/tokenizer.h"

#include <array>
#include <cstdio>

namespace aw::tokenizer_detail {
namespace {

// GPT-2's bytes_to_unicode: the printable bytes 33..126, 161..172 and 174..255 stand for
// themselves; the other 68 bytes get the code points 256, 257, … in increasing byte order.
std::array<char32_t, 256> make_byte_symbols() {
  std::array<char32_t, 256> symbols{};
  char32_t next = 256;
  for (int byte = 0; byte < 256; ++byte) {
    const bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
    symbols[byte] = printable ? static_cast<char32_t>(byte) : next++;
  }
  return symbols;
}

const std::array<char32_t, 256>& byte_symbols() {
  static const auto symbols = make_byte_symbols();
  return symbols;
}

// `bytes` with every whole UTF-8 character kept as it is and what is not one handed to
// `repair(pos, text)`, which appends its stand-in to `text` and returns how many bytes (≥ 1) it took.
template <typename Repair>
std::string keep_whole_characters(const std::string& bytes, const Repair& repair) {
  std::string text;
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t length = utf8_sequence_length(bytes, pos);
    if (length > 0) {
      text.append(bytes, pos, length);
      pos += length;
    } else {
      pos += repair(pos, text);
    }
  }
  return text;
}

// Bytes → readable text: whole UTF-8 characters as they are, any other byte as \xNN.
std::string escape_partial_characters(const std::string& bytes) {
  return keep_whole_characters(bytes, [&bytes](size_t pos, std::string& text) -> size_t {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(bytes[pos])));
    text += escaped;
    return 1;
  });
}

}  // namespace

int byte_of_symbol(char32_t symbol) {
  static const auto bytes = [] {
    std::array<int, 256 + 68> table;
    table.fill(-1);
    for (int byte = 0; byte < 256; ++byte) table[byte_symbols()[byte]] = byte;
    return table;
  }();
  return symbol < bytes.size() ? bytes[symbol] : -1;
}

std::string symbol_utf8(unsigned char byte) {
  std::string text;
  append_utf8(text, byte_symbols()[byte]);
  return text;
}

std::string readable_text(const std::string& spelling) {
  std::string bytes;
  for (const char32_t symbol : decode_utf8(spelling)) {
    const int byte = byte_of_symbol(symbol);
    if (byte >= 0) bytes += static_cast<char>(byte);
    else append_utf8(bytes, symbol);
  }
  return escape_partial_characters(bytes);
}

std::string replace_ill_formed_utf8(const std::string& bytes) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  return keep_whole_characters(bytes, [&](size_t pos, std::string& text) -> size_t {
    // The lead byte's sequence length and allowed second byte (Unicode table 3-7), then how many
    // of the bytes after it continue that sequence before it breaks.
    const unsigned char lead = byte(pos);
    size_t expected = 0;
    unsigned char second_min = 0x80, second_max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) expected = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) expected = 3;
    else if (lead >= 0xF0 && lead <= 0xF4) expected = 4;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
    size_t taken = 1;
    while (taken < expected && pos + taken < bytes.size()) {
      const unsigned char next = byte(pos + taken);
      const bool continues = taken == 1 ? next >= second_min && next <= second_max : next >= 0x80 && next <= 0xBF;
      if (!continues) break;
      ++taken;
    }
    text += "\xEF\xBF\xBD";  // U+FFFD
    return taken;
  });
}

}  // namespace aw::tokenizer_detail
