// models/text/tokenizer_gpt2.cpp — byte-level BPE: GPT-2's vocab.json + merges.txt, giving the ids
// Hugging Face's GPT2Tokenizer gives for the same files and text, and the tokenizer a tokenizer.json
// describes (tokenizer_hf_json.cpp reads it into a ByteLevelBpeSpec). From GPT-2's files no special
// tokens are added, and "<|endoftext|>" inside the text is ordinary text (Hugging Face matches it as
// a special token); a tokenizer.json's added tokens are matched, and its template added.
//
// Text → added tokens split off → normalizers (NFC, Prepend, Replace) → pieces (each
// pre-tokenisation step; GPT-2's own pattern for GPT-2) → each piece's UTF-8 bytes → one symbol per
// byte (GPT-2's printable stand-ins, which is how the vocabulary spells tokens) → BPE merges by rank
// → ids. SentencePiece-style BPE (a tokenizer.json with byte_fallback) starts instead from one
// symbol per character, spelt as itself ("▁"), bytes' <0xNN> tokens for characters it lacks.
//
// Readable token text is the bytes a token stands for (" the" for "Ġthe"). Byte-level BPE can cut
// a multi-byte character (emoji, CJK) between tokens; a byte that is not part of a whole UTF-8
// character is shown as the four characters \xNN ("\xF0\x9F"), so labels stay valid UTF-8.
//
// decode joins the tokens' bytes and reads them as UTF-8, each ill-formed stretch becoming one
// U+FFFD (Python's errors="replace", as Hugging Face decodes). It skips special tokens, as
// skip_special_tokens=True does: a tokenizer.json's special added tokens, and for GPT-2's files the
// vocabulary entries that BPE never produces — neither a byte's symbol nor a merge's result:
// "<|endoftext|>" in GPT-2, "<s>", "</s>", "<pad>", "<unk>", "<mask>" in BART.
#include "models/text/tokenizer.h"

#include "models/errors.h"
#include "models/text/byte_level_bpe.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <queue>
#include <unordered_map>

namespace aw {
namespace {

using tokenizer_detail::append_utf8;
using tokenizer_detail::read_vocab_json;
using tokenizer_detail::utf8_sequence_length;

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

// The byte a symbol stands for, or -1 for a code point that is no byte's symbol.
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

std::string hex_byte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", static_cast<unsigned>(byte));
  return text;
}

// Bytes → readable text: whole UTF-8 characters as they are, any other byte as \xNN.
std::string escape_partial_characters(const std::string& bytes) {
  std::string text;
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t length = utf8_sequence_length(bytes, pos);
    if (length > 0) {
      text.append(bytes, pos, length);
      pos += length;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(bytes[pos])));
      text += escaped;
      ++pos;
    }
  }
  return text;
}

// A vocab.json spelling ("Ġthe") → readable text (" the"). Code points that are no byte's symbol
// (none in GPT-2's own files) are kept as they are.
std::string readable_text(const std::string& spelling) {
  std::string bytes;
  for (const char32_t symbol : tokenizer_detail::decode_utf8(spelling)) {
    const int byte = byte_of_symbol(symbol);
    if (byte >= 0) bytes += static_cast<char>(byte);
    else append_utf8(bytes, symbol);
  }
  return escape_partial_characters(bytes);
}

// Bytes → text, each maximal ill-formed stretch (the longest start of a well-formed sequence, or
// one byte) replaced by U+FFFD, as Python's bytes.decode("utf-8", errors="replace").
std::string replace_ill_formed_utf8(const std::string& bytes) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  std::string text;
  for (size_t pos = 0; pos < bytes.size();) {
    const size_t length = utf8_sequence_length(bytes, pos);
    if (length > 0) {
      text.append(bytes, pos, length);
      pos += length;
      continue;
    }
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
    pos += taken;
  }
  return text;
}


std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0) return "PCRE2 error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

struct Pcre2CodeFree {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct Pcre2MatchDataFree {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

using Pattern = std::unique_ptr<pcre2_code, Pcre2CodeFree>;

Pattern compile_piece_pattern(const std::string& pattern, const std::string& source) {
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  Pattern code(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                             &error, &error_offset, nullptr));
  if (!code)
    fail_in_file(source, "pre-tokenisation pattern " + quoted_excerpt(pattern) + " does not compile at offset " +
                             std::to_string(error_offset) + ": " + pcre2_message(error));
  // JIT is only a speed-up: without it (or when it fails) pcre2_match interprets the pattern.
  pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE);
  return code;
}

// One merge of merges.txt: its rank (earlier lines merge first) and the id of the merged symbol.
struct Merge {
  int32_t rank;
  int64_t result;
};

uint64_t pair_key(int64_t left, int64_t right) {
  return (static_cast<uint64_t>(left) << 32) | static_cast<uint32_t>(right);
}

std::vector<std::string> split_on_blanks(const std::string& line) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    if (pos > start) words.push_back(line.substr(start, pos - start));
  }
  return words;
}

// Pieces are cached by their bytes up to this length; the cache is emptied when it reaches kCacheLimit.
constexpr size_t kCachedPieceBytes = 64;
constexpr size_t kCacheLimit = 1 << 16;

// One piece of text on its way through encode: a stretch still to tokenise, or an added token's id.
struct Piece {
  std::string text;
  int64_t added_id = -1;
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string nfc(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  const auto* normalizer = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) throw Error(std::string("ICU has no NFC normalizer: ") + u_errorName(status));
  const auto normalized = normalizer->normalize(icu::UnicodeString::fromUTF8(text), status);
  if (U_FAILURE(status)) throw Error(std::string("NFC normalisation failed: ") + u_errorName(status));
  std::string out;
  normalized.toUTF8String(out);
  return out;
}

class ByteLevelBpeTokenizer final : public tokenizer_detail::TableTokenizer {
 public:
  explicit ByteLevelBpeTokenizer(tokenizer_detail::ByteLevelBpeSpec spec) : spec_(std::move(spec)) {
    read_vocab();
    read_merges();
    for (const auto ids : {&spec_.prefix_ids, &spec_.suffix_ids})
      for (const int64_t id : *ids)
        if (id < 0 || id >= vocab_size())
          fail_in_file(spec_.vocab_source, "the template's special token id " + std::to_string(id) + " is outside the " +
                                               std::to_string(vocab_size()) + " tokens");
    for (const auto& step : spec_.steps)
      patterns_.push_back(step.pattern.empty() ? nullptr : compile_piece_pattern(step.pattern, spec_.vocab_source));
  }

  Encoding encode(const std::string& text) const override {
    tokenizer_detail::require_utf8(text);  // before PCRE2_NO_UTF_CHECK below
    Encoding encoding;
    const auto add = [&](int64_t id) {
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(0);
    };
    for (const int64_t id : spec_.prefix_ids) add(id);
    for (const auto& raw : split_added(text, /*normalized=*/false)) {
      if (raw.added_id >= 0) {
        add(raw.added_id);
        continue;
      }
      for (const auto& piece : split_added(normalize(raw.text), /*normalized=*/true)) {
        if (piece.added_id >= 0) {
          add(piece.added_id);
          continue;
        }
        for (const auto& pre_token : pre_tokenize(piece.text, /*first=*/encoding.ids.size() == spec_.prefix_ids.size()))
          for (const int64_t id : piece_ids(pre_token)) add(id);
      }
    }
    for (const int64_t id : spec_.suffix_ids) add(id);
    return encoding;
  }

  std::string decode(const std::vector<int64_t>& ids) const override {
    if (spec_.character_symbols) return decode_characters(ids);
    std::string bytes;
    for (const int64_t id : ids) {
      require_id(id);
      if (skipped_[static_cast<size_t>(id)]) continue;
      if (added_text_[static_cast<size_t>(id)]) {
        bytes += spellings_[static_cast<size_t>(id)];
        continue;
      }
      for (const char32_t symbol : tokenizer_detail::decode_utf8(spellings_[static_cast<size_t>(id)])) {
        const int byte = byte_of_symbol(symbol);
        if (byte >= 0) bytes += static_cast<char>(byte);
        else append_utf8(bytes, symbol);
      }
    }
    return replace_ill_formed_utf8(bytes);
  }

  std::string kind() const override { return spec_.kind; }

 private:
  // Character symbols: the spellings (a <0xNN> token's byte), the space symbol back to spaces, the
  // leading spaces the decoder strips.
  std::string decode_characters(const std::vector<int64_t>& ids) const {
    std::string bytes;
    for (const int64_t id : ids) {
      require_id(id);
      const auto index = static_cast<size_t>(id);
      if (skipped_[index]) continue;
      if (fallback_byte_[index] >= 0) bytes += static_cast<char>(fallback_byte_[index]);
      else bytes += spellings_[index];
    }
    std::string text;
    const auto& space = spec_.space_symbol;
    for (size_t pos = 0; pos < bytes.size();) {
      if (!space.empty() && bytes.compare(pos, space.size(), space) == 0) {
        text += ' ';
        pos += space.size();
      } else {
        text += bytes[pos++];
      }
    }
    size_t strip = 0;
    while (strip < static_cast<size_t>(spec_.strip_leading) && strip < text.size() && text[strip] == ' ') ++strip;
    return replace_ill_formed_utf8(text.substr(strip));
  }

  void read_vocab() {
    spellings_ = std::move(spec_.spellings);
    // Added tokens past the model's vocabulary extend it (their ids follow it, as in tokenizer.json).
    for (const auto& token : spec_.added) {
      if (token.id < 0) fail_in_file(spec_.vocab_source, "added token " + quoted_excerpt(token.content) + " has a negative id");
      if (static_cast<size_t>(token.id) >= spellings_.size()) spellings_.resize(static_cast<size_t>(token.id) + 1);
      auto& spelling = spellings_[static_cast<size_t>(token.id)];
      if (!spelling.empty() && spelling != token.content)
        fail_in_file(spec_.vocab_source, "added token " + quoted_excerpt(token.content) + " has id " +
                                             std::to_string(token.id) + ", which the vocabulary gives to " +
                                             quoted_excerpt(spelling));
      spelling = token.content;
    }
    const size_t size = spellings_.size();
    for (size_t id = 0; id < size; ++id) {
      if (spellings_[id].empty()) fail_in_file(spec_.vocab_source, "has no token with id " + std::to_string(id));
      ids_.emplace(spellings_[id], static_cast<int64_t>(id));
    }
    added_text_.assign(size, false);
    for (const auto& token : spec_.added) {
      added_text_[static_cast<size_t>(token.id)] = true;
      if (!token.content.empty()) starts_added_[static_cast<unsigned char>(token.content[0])] = true;
    }
    texts_.reserve(size);
    for (size_t id = 0; id < size; ++id)
      texts_.push_back(added_text_[id] || spec_.character_symbols ? spellings_[id] : readable_text(spellings_[id]));
    fallback_byte_.assign(size, -1);
    for (int byte = 0; byte < 256; ++byte) {
      char spelling[8];
      std::snprintf(spelling, sizeof spelling, "<0x%02X>", static_cast<unsigned>(byte));
      byte_fallback_ids_[byte] = token_id(spelling);
      if (byte_fallback_ids_[byte] >= 0) fallback_byte_[static_cast<size_t>(byte_fallback_ids_[byte])] = byte;
    }
    std::vector<bool> produced(size, false);
    for (int byte = 0; byte < 256; ++byte) {
      byte_ids_[byte] = token_id(symbol_utf8(static_cast<unsigned char>(byte)));
      if (byte_ids_[byte] >= 0) produced[static_cast<size_t>(byte_ids_[byte])] = true;
    }
    for (const auto& merge : spec_.merges) {
      const int64_t result = token_id(merge.left + merge.right);
      if (result >= 0) produced[static_cast<size_t>(result)] = true;
    }
    // Without added tokens (GPT-2's files) the specials are the entries BPE never produces.
    skipped_.assign(size, false);
    for (size_t id = 0; id < size; ++id) skipped_[id] = spec_.added.empty() && !produced[id];
    for (const auto& token : spec_.added) skipped_[static_cast<size_t>(token.id)] = token.special;
  }

  void read_merges() {
    std::unordered_map<uint64_t, std::string> where_of_merge;
    for (const auto& entry : spec_.merges) {
      const auto& where = entry.where;
      const std::string merge = "merge " + quoted_excerpt(entry.left + " " + entry.right);
      const int64_t left = token_id(entry.left), right = token_id(entry.right);
      const int64_t result = token_id(entry.left + entry.right);
      for (const auto& [id, spelling] : {std::pair{left, entry.left}, std::pair{right, entry.right}})
        if (id < 0)
          fail_in_file(spec_.merges_source, where + merge + " uses " + quoted_excerpt(spelling) + ", which is not in the vocabulary");
      if (result < 0)
        fail_in_file(spec_.merges_source, where + merge + " makes " + quoted_excerpt(entry.left + entry.right) +
                                              ", which is not in the vocabulary");
      const auto key = pair_key(left, right);
      const auto [previous, inserted] = where_of_merge.emplace(key, where);
      if (!inserted) fail_in_file(spec_.merges_source, where + merge + " repeats " + previous->second.substr(0, previous->second.size() - 2));
      if (merges_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        fail_in_file(spec_.merges_source, where + "too many merges");
      merges_.emplace(key, Merge{static_cast<int32_t>(merges_.size()), result});
    }
    spec_.merges.clear();
    spec_.merges.shrink_to_fit();
  }

  // The text cut at the added tokens of this kind (normalized or not): the leftmost match, the
  // longest there, lstrip/rstrip taking the blanks beside it.
  std::vector<Piece> split_added(const std::string& text, bool normalized) const {
    std::vector<Piece> pieces;
    size_t start = 0, pos = 0;
    while (pos < text.size()) {
      if (!starts_added_[static_cast<unsigned char>(text[pos])]) {  // most bytes start no added token
        ++pos;
        continue;
      }
      const tokenizer_detail::ByteLevelBpeSpec::AddedToken* best = nullptr;
      for (const auto& token : spec_.added)
        if (token.normalized == normalized && !token.content.empty() && text.compare(pos, token.content.size(), token.content) == 0 &&
            (!best || token.content.size() > best->content.size()))
          best = &token;
      if (!best) {
        ++pos;
        continue;
      }
      size_t begin = pos, end = pos + best->content.size();
      if (best->lstrip)
        while (begin > start && is_blank(text[begin - 1])) --begin;
      if (best->rstrip)
        while (end < text.size() && is_blank(text[end])) ++end;
      if (begin > start) pieces.push_back({text.substr(start, begin - start)});
      pieces.push_back({{}, best->id});
      start = pos = end;
    }
    if (start < text.size()) pieces.push_back({text.substr(start)});
    return pieces;
  }

  std::string normalize(std::string text) const {
    using Kind = tokenizer_detail::ByteLevelBpeSpec::Normalizer::Kind;
    for (const auto& step : spec_.normalizers) {
      if (step.kind == Kind::Nfc) {
        text = nfc(text);
      } else if (step.kind == Kind::Prepend) {
        if (!text.empty()) text.insert(0, step.text);
      } else if (!step.text.empty()) {
        std::string replaced;
        for (size_t pos = 0;;) {
          const size_t found = text.find(step.text, pos);
          replaced.append(text, pos, found == std::string::npos ? std::string::npos : found - pos);
          if (found == std::string::npos) break;
          replaced += step.by;
          pos = found + step.text.size();
        }
        text.swap(replaced);
      }
    }
    return text;
  }

  // Each step in turn over every piece. `first`: the text is the start of what is encoded (no added
  // token before it), where Metaspace's "first" prepend scheme puts its replacement.
  std::vector<std::string> pre_tokenize(const std::string& text, bool first) const {
    using Kind = tokenizer_detail::ByteLevelBpeSpec::Step::Kind;
    std::vector<std::string> pieces{text}, next;
    for (size_t index = 0; index < spec_.steps.size(); ++index) {
      const auto& step = spec_.steps[index];
      next.clear();
      for (size_t p = 0; p < pieces.size(); ++p) {
        auto& piece = pieces[p];
        if (step.kind == Kind::Metaspace) {
          metaspace(step, piece, first && p == 0, next);
          continue;
        }
        if (step.add_prefix_space && piece.rfind(' ', 0) != 0) piece.insert(0, " ");
        if (patterns_[index]) split_isolated(*patterns_[index], piece, next);
        else next.push_back(std::move(piece));
      }
      pieces.swap(next);
    }
    return pieces;
  }

  // Metaspace: spaces → the replacement, put before the text by the prepend scheme; with `split`,
  // each piece starts at a replacement (the replacement goes with what follows it).
  static void metaspace(const tokenizer_detail::ByteLevelBpeSpec::Step& step, const std::string& text, bool first,
                        std::vector<std::string>& out) {
    std::string replaced;
    for (const char c : text) {
      if (c == ' ') replaced += step.replacement;
      else replaced += c;
    }
    const bool prepend = step.prepend_scheme == "always" || (step.prepend_scheme == "first" && first);
    if (prepend && replaced.rfind(step.replacement, 0) != 0) replaced.insert(0, step.replacement);
    if (!step.split || step.replacement.empty()) {
      out.push_back(std::move(replaced));
      return;
    }
    size_t start = 0;
    for (size_t pos = replaced.find(step.replacement, 1); pos != std::string::npos;
         pos = replaced.find(step.replacement, pos + step.replacement.size())) {
      out.push_back(replaced.substr(start, pos - start));
      start = pos;
    }
    out.push_back(replaced.substr(start));
  }

  // Every match of `pattern` in `text`, and every stretch between matches, in order.
  static void split_isolated(const pcre2_code& pattern, const std::string& text, std::vector<std::string>& out) {
    std::unique_ptr<pcre2_match_data, Pcre2MatchDataFree> match(pcre2_match_data_create_from_pattern(&pattern, nullptr));
    if (!match) throw Error("byte-level BPE tokenizer: out of memory for pattern matching");
    const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t offset = 0, done = 0;
    while (offset < text.size()) {
      int found = pcre2_match(&pattern, subject, text.size(), offset, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
      if (found == PCRE2_ERROR_JIT_STACKLIMIT)
        found = pcre2_match(&pattern, subject, text.size(), offset, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.get(), nullptr);
      if (found == PCRE2_ERROR_NOMATCH) break;
      if (found < 0)
        throw Error("pre-tokenisation failed at byte offset " + std::to_string(offset) + ": " + pcre2_message(found));
      const PCRE2_SIZE* bounds = pcre2_get_ovector_pointer(match.get());
      const size_t begin = bounds[0], end = bounds[1];
      if (end == begin) {  // an empty match splits nothing: step over one character
        offset = begin + std::max<size_t>(1, utf8_sequence_length(text, begin));
        continue;
      }
      if (begin > done) out.push_back(text.substr(done, begin - done));
      out.push_back(text.substr(begin, end - begin));
      done = offset = end;
    }
    if (done < text.size()) out.push_back(text.substr(done));
  }

  // The ids of one piece, through the cache for short pieces.
  std::vector<int64_t> piece_ids(const std::string& piece) const {
    if (piece.size() <= kCachedPieceBytes) {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      const auto cached = cache_.find(piece);
      if (cached != cache_.end()) return cached->second;
    }
    auto ids = whole_token(piece);
    if (ids.empty()) ids = merge_symbols(spec_.character_symbols ? character_ids(piece) : byte_symbol_ids(piece));
    for (const int64_t id : ids)
      if (id < 0) {
        const auto byte = static_cast<unsigned char>(-1 - id);
        fail_in_file(spec_.vocab_source, "has no token for byte " + hex_byte(byte) + " (symbol '" + symbol_utf8(byte) +
                                      "'), which the text needs");
      }
    if (piece.size() <= kCachedPieceBytes) {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cache_.size() >= kCacheLimit) cache_.clear();
      cache_.emplace(piece, ids);
    }
    return ids;
  }

  // With ignore_merges, a piece the vocabulary holds whole is that one token.
  std::vector<int64_t> whole_token(const std::string& piece) const {
    if (!spec_.ignore_merges) return {};
    std::string spelling = spec_.character_symbols ? piece : std::string();
    if (!spec_.character_symbols)
      for (const char c : piece) spelling += symbol_utf8(static_cast<unsigned char>(c));
    const int64_t id = token_id(spelling);
    if (id < 0 || added_text_[static_cast<size_t>(id)]) return {};
    return {id};
  }

  // Byte-level symbols: one per byte; a byte without a vocabulary entry stays as -1 - byte (no merge
  // can involve it, since every merge's tokens are vocabulary entries).
  std::vector<int64_t> byte_symbol_ids(const std::string& piece) const {
    std::vector<int64_t> symbols;
    symbols.reserve(piece.size());
    for (const char c : piece) {
      const auto byte = static_cast<unsigned char>(c);
      symbols.push_back(byte_ids_[byte] >= 0 ? byte_ids_[byte] : -1 - static_cast<int64_t>(byte));
    }
    return symbols;
  }

  // Character symbols (SentencePiece-style): one per character the vocabulary holds; another
  // character becomes its bytes' <0xNN> tokens (byte_fallback) or the unknown token.
  std::vector<int64_t> character_ids(const std::string& piece) const {
    std::vector<int64_t> symbols;
    for (size_t pos = 0; pos < piece.size();) {
      const size_t length = std::max<size_t>(1, utf8_sequence_length(piece, pos));
      const std::string character = piece.substr(pos, length);
      pos += length;
      const int64_t id = token_id(character);
      if (id >= 0 && !added_text_[static_cast<size_t>(id)]) {
        symbols.push_back(id);
        continue;
      }
      std::vector<int64_t> bytes;
      for (const char c : character) bytes.push_back(byte_fallback_ids_[static_cast<unsigned char>(c)]);
      if (spec_.byte_fallback && std::find(bytes.begin(), bytes.end(), -1) == bytes.end()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
      } else if (spec_.unk_id >= 0) {
        if (!(spec_.fuse_unk && !symbols.empty() && symbols.back() == spec_.unk_id)) symbols.push_back(spec_.unk_id);
      } else {
        fail_in_file(spec_.vocab_source, "has no token for the character " + quoted_excerpt(character) +
                                             " and no unknown token, and the text needs it");
      }
    }
    return symbols;
  }

  // BPE: repeatedly merge the adjacent pair with the lowest rank, the leftmost first among equal
  // ones, until no adjacent pair is a merge — as Hugging Face's tokenizers do, and for any merge
  // table where a token is made before it is used, the same as GPT-2's pass per pair. The symbols
  // form a linked list and the candidate pairs a heap (entries a merge made stale are skipped), so a
  // text of n symbols costs n log n, not one scan of the text per merge: a SentencePiece-style
  // tokenizer without pre-tokenisation merges over a whole text.
  std::vector<int64_t> merge_symbols(std::vector<int64_t> symbols) const {
    const size_t count = symbols.size();
    if (count < 2) return symbols;
    struct Candidate {
      int32_t rank;
      size_t left;  // position of the pair's left symbol
      int64_t left_id, right_id;
      bool operator>(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : left > other.left;
      }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> candidates;
    const auto consider = [&](size_t left, size_t right) {
      if (symbols[left] < 0 || symbols[right] < 0) return;
      const auto found = merges_.find(pair_key(symbols[left], symbols[right]));
      if (found != merges_.end()) candidates.push({found->second.rank, left, symbols[left], symbols[right]});
    };
    constexpr size_t kNone = std::numeric_limits<size_t>::max();
    std::vector<size_t> previous(count), next(count);
    std::vector<bool> alive(count, true);
    for (size_t i = 0; i < count; ++i) {
      previous[i] = i == 0 ? kNone : i - 1;
      next[i] = i + 1 == count ? kNone : i + 1;
    }
    for (size_t i = 0; i + 1 < count; ++i) consider(i, i + 1);
    while (!candidates.empty()) {
      const auto candidate = candidates.top();
      candidates.pop();
      const size_t left = candidate.left, right = next[left];
      if (!alive[left] || right == kNone || symbols[left] != candidate.left_id || symbols[right] != candidate.right_id)
        continue;  // a merge since it was pushed changed one of its symbols
      symbols[left] = merges_.at(pair_key(symbols[left], symbols[right])).result;
      alive[right] = false;
      next[left] = next[right];
      if (next[left] != kNone) previous[next[left]] = left;
      if (previous[left] != kNone) consider(previous[left], left);
      if (next[left] != kNone) consider(left, next[left]);
    }
    std::vector<int64_t> merged;
    for (size_t i = 0; i != kNone; i = next[i]) merged.push_back(symbols[i]);
    return merged;
  }

  tokenizer_detail::ByteLevelBpeSpec spec_;  // its spellings and merges moved into the tables below
  std::vector<Pattern> patterns_;            // per pre-tokenisation step, compiled once (null: no split)
  std::vector<std::string> spellings_;       // index = id, as the file spells tokens ("Ġthe")
  std::vector<bool> added_text_;             // index = id: an added token, whose spelling is its text
  std::vector<bool> skipped_;                // index = id: a special token, which decode skips
  std::array<int64_t, 256> byte_ids_{};      // byte → id of its symbol, -1 if absent
  std::array<int64_t, 256> byte_fallback_ids_{};  // byte → id of its <0xNN> token, -1 if absent
  std::vector<int> fallback_byte_;           // index = id: the byte of a <0xNN> token, else -1
  std::array<bool, 256> starts_added_{};     // byte → whether some added token starts with it
  std::unordered_map<uint64_t, Merge> merges_;          // (left id, right id) → merge
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int64_t>> cache_;  // piece bytes → ids
};

// merges.txt: an optional "#version: …" first line, then one merge per line, "left right",
// earliest line first merged. Blank lines are skipped.
std::vector<tokenizer_detail::ByteLevelBpeSpec::MergeEntry> read_merges_txt(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<tokenizer_detail::ByteLevelBpeSpec::MergeEntry> merges;
  std::string line;
  size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    require_line_length(path, line_number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1 && line.rfind("#version", 0) == 0) continue;
    const auto words = split_on_blanks(line);
    if (words.empty()) continue;
    const std::string where = "line " + std::to_string(line_number) + ": ";
    if (words.size() != 2)
      fail_in_file(path, where + "expected two tokens separated by a space, found " + std::to_string(words.size()) +
                             " (" + quoted_excerpt(line) + ")");
    merges.push_back({words[0], words[1], where});
  }
  return merges;
}

}  // namespace

namespace tokenizer_detail {

// With \s spelt \p{White_Space}: under PCRE2_UCP, \s also matches U+180E, which the `regex` module
// Hugging Face uses does not count as space.
const char* const kGpt2PiecePattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+)"
    R"(|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+)";

std::unique_ptr<Tokenizer> make_byte_level_bpe(ByteLevelBpeSpec spec) {
  return std::make_unique<ByteLevelBpeTokenizer>(std::move(spec));
}

}  // namespace tokenizer_detail

std::unique_ptr<Tokenizer> load_gpt2_tokenizer(const std::string& vocab_json_path, const std::string& merges_path) {
  tokenizer_detail::ByteLevelBpeSpec spec;
  spec.kind = "gpt2_bpe";
  spec.vocab_source = vocab_json_path;
  spec.spellings = read_vocab_json(vocab_json_path, "token");
  spec.merges_source = merges_path;
  spec.merges = read_merges_txt(merges_path);
  spec.steps = {tokenizer_detail::ByteLevelBpeSpec::Step::split_by(tokenizer_detail::kGpt2PiecePattern, false)};
  return tokenizer_detail::make_byte_level_bpe(std::move(spec));
}

}  // namespace aw
