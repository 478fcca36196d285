// models/text/tokenizer_wordpiece.cpp — BERT WordPiece, giving the ids transformers 5's BertTokenizer
// gives (the `tokenizers` library's BertNormalizer, BertPreTokenizer and WordPiece model) for the same
// vocab.txt or tokenizer.json and text.
//
// Special tokens written in the text ("[SEP]", or a tokenizer.json's added tokens) are cut out first
// and are one token each. Then the normaliser: drop NUL, U+FFFD and control/format characters
// (category C*; tab, newline and carriage return count as space); turn spaces into ' '; put spaces
// around CJK ideographs; if stripping accents (by default when lowercasing), NFD and drop non-spacing
// marks; if lowercasing, lower-case. No NFC: a decomposed accent stays two code points, as the library
// leaves it (on a cased vocabulary "cafe\u0301" is then [UNK], where the legacy Python tokenizer
// composed it). Pre-tokenizer: split on white space and around every punctuation character. WordPiece:
// greedy longest match first, the continuation prefix ("##") before every piece but the first; a word
// longer than its limit (100 characters) or with no full match is one [UNK].
#include "models/text/tokenizer.h"
#include "models/text/special_tokens.h"
#include "models/text/wordpiece_spec.h"

#include "models/errors.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace aw {
namespace {

bool is_cjk_ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

uint32_t category_mask(char32_t c) { return U_GET_GC_MASK(static_cast<UChar32>(c)); }

bool is_space_to_keep(char32_t c) {  // becomes ' ' when cleaning
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || (category_mask(c) & U_GC_ZS_MASK) != 0;
}

bool is_dropped(char32_t c) {  // removed when cleaning
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return c == 0 || c == 0xFFFD || (category_mask(c) & U_GC_C_MASK) != 0;
}

// What Python's str.split() splits on, among what is left after cleaning (line/paragraph separators).
bool is_split_space(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

bool is_punctuation(char32_t c) {
  // BERT counts every non-letter, non-digit printable ASCII character as punctuation ("$", "^", "`").
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return (category_mask(c) & U_GC_P_MASK) != 0;
}

icu::UnicodeString to_icu(const std::u32string& text) {
  return icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32*>(text.data()), static_cast<int32_t>(text.size()));
}

std::u32string from_icu(const icu::UnicodeString& text) {
  std::u32string code_points;
  code_points.reserve(static_cast<size_t>(text.length()));
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    code_points.push_back(static_cast<char32_t>(c));
    i += U16_LENGTH(c);
  }
  return code_points;
}

const icu::Normalizer2& normalizer(bool compose) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* instance =
      compose ? icu::Normalizer2::getNFCInstance(status) : icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status) || instance == nullptr)
    throw Error(std::string("ICU cannot load its Unicode normalisation data (") + u_errorName(status) + ")");
  return *instance;
}

std::u32string normalize(const std::u32string& text, const icu::Normalizer2& form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString normalized = form.normalize(to_icu(text), status);
  if (U_FAILURE(status)) throw Error(std::string("ICU normalisation failed (") + u_errorName(status) + ")");
  return from_icu(normalized);
}

class WordPieceTokenizer final : public tokenizer_detail::TableTokenizer {
 public:
  explicit WordPieceTokenizer(WordPieceSpec spec) : spec_(std::move(spec)), nfd_(normalizer(false)) {
    set_tokens(spec_.tokens);
    const auto required = [&](const std::string& token) {
      const int64_t id = token_id(token);
      if (id < 0) fail_in_file(spec_.source, "has no '" + token + "' token (BERT needs " + spec_.cls + ", " + spec_.sep +
                                                " and " + spec_.unk + ")");
      return id;
    };
    cls_id_ = required(spec_.cls);
    sep_id_ = required(spec_.sep);
    unk_id_ = required(spec_.unk);
    for (const auto& special : spec_.specials)
      if (const int64_t id = token_id(special); id >= 0) specials_.emplace_back(special, id);
    // Longest first, so "[MASK]" is not read as a shorter special token that starts it.
    std::sort(specials_.begin(), specials_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }

  Encoding encode(const std::string& text) const override {
    Encoding encoding;
    append(encoding, {cls_id_}, 0);
    append(encoding, word_piece_ids(text), 0);
    append(encoding, {sep_id_}, 0);
    return encoding;
  }

  Encoding encode_pair(const std::string& text_a, const std::string& text_b) const override {
    Encoding encoding = encode(text_a);
    append(encoding, word_piece_ids(text_b), 1);
    append(encoding, {sep_id_}, 1);
    return encoding;
  }

  std::string kind() const override { return "wordpiece"; }

 private:
  void append(Encoding& encoding, const std::vector<int64_t>& ids, int64_t type_id) const {
    for (const int64_t id : ids) {
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(type_id);
    }
  }

  // The ids of `text` without [CLS] / [SEP]: special tokens written in it as themselves, the text
  // between them through the normaliser and WordPiece.
  std::vector<int64_t> word_piece_ids(const std::string& text) const {
    std::vector<int64_t> ids;
    size_t from = 0;
    const bool specials = special_tokens_in_text();
    for (size_t at = 0; specials && at < text.size();) {
      const auto special = std::find_if(specials_.begin(), specials_.end(),
                                        [&](const auto& s) { return text.compare(at, s.first.size(), s.first) == 0; });
      if (special == specials_.end()) {
        ++at;
        continue;
      }
      for (const auto& word : basic_words(text.substr(from, at - from))) word_pieces(word, ids);
      ids.push_back(special->second);
      at += special->first.size();
      from = at;
    }
    for (const auto& word : basic_words(text.substr(from))) word_pieces(word, ids);
    return ids;
  }

  // BERT's BasicTokenizer: cleaned, split words and punctuation marks.
  std::vector<std::u32string> basic_words(const std::string& text) const {
    std::u32string cleaned;
    for (const char32_t c : tokenizer_detail::decode_utf8(text)) {
      if (is_dropped(c)) continue;
      if (is_space_to_keep(c)) {
        cleaned += U' ';
      } else if (spec_.handle_chinese_chars && is_cjk_ideograph(c)) {
        cleaned += U' ';
        cleaned += c;
        cleaned += U' ';
      } else {
        cleaned += c;
      }
    }
    std::vector<std::u32string> words;
    size_t pos = 0;
    while (pos < cleaned.size()) {
      while (pos < cleaned.size() && is_split_space(cleaned[pos])) ++pos;
      const size_t start = pos;
      while (pos < cleaned.size() && !is_split_space(cleaned[pos])) ++pos;
      if (pos == start) break;
      std::u32string word = cleaned.substr(start, pos - start);
      if (spec_.strip_accents) word = strip_accents(word);
      if (spec_.lowercase) word = lower_case(word);
      split_punctuation(word, words);
    }
    return words;
  }

  static std::u32string lower_case(const std::u32string& word) {
    // Full case mapping in the root locale, as Python's str.lower() (final sigma included).
    icu::UnicodeString text = to_icu(word);
    text.toLower(icu::Locale::getRoot());
    return from_icu(text);
  }

  std::u32string strip_accents(const std::u32string& word) const {
    std::u32string stripped;
    for (const char32_t c : normalize(word, nfd_))
      if (u_charType(static_cast<UChar32>(c)) != U_NON_SPACING_MARK) stripped += c;
    return stripped;
  }

  static void split_punctuation(const std::u32string& word, std::vector<std::u32string>& out) {
    std::u32string run;
    for (const char32_t c : word) {
      if (is_punctuation(c)) {
        if (!run.empty()) out.push_back(run);
        run.clear();
        out.push_back(std::u32string(1, c));
      } else {
        run += c;
      }
    }
    if (!run.empty()) out.push_back(run);
  }

  // WordPiece: greedy longest match first; a word that cannot be covered is a single [UNK].
  void word_pieces(const std::u32string& word, std::vector<int64_t>& ids) const {
    if (static_cast<int64_t>(word.size()) > spec_.max_word_characters) {
      ids.push_back(unk_id_);
      return;
    }
    std::string utf8;
    std::vector<size_t> offsets;  // byte offset of each character, then the total length
    for (const char32_t c : word) {
      offsets.push_back(utf8.size());
      tokenizer_detail::append_utf8(utf8, c);
    }
    offsets.push_back(utf8.size());

    std::vector<int64_t> pieces;
    std::string candidate;
    for (size_t start = 0; start < word.size();) {
      int64_t piece = -1;
      size_t end = word.size();
      for (; end > start; --end) {
        candidate = start > 0 ? spec_.continuation : "";
        candidate.append(utf8, offsets[start], offsets[end] - offsets[start]);
        piece = token_id(candidate);
        if (piece >= 0) break;
      }
      if (piece < 0) {
        ids.push_back(unk_id_);
        return;
      }
      pieces.push_back(piece);
      start = end;
    }
    ids.insert(ids.end(), pieces.begin(), pieces.end());
  }

  WordPieceSpec spec_;
  const icu::Normalizer2& nfd_;
  int64_t cls_id_ = 0, sep_id_ = 0, unk_id_ = 0;
  std::vector<std::pair<std::string, int64_t>> specials_;  // spelled in the text → id, longest first
};

}  // namespace

std::unique_ptr<Tokenizer> make_wordpiece_tokenizer(WordPieceSpec spec) {
  return std::make_unique<WordPieceTokenizer>(std::move(spec));
}

std::unique_ptr<Tokenizer> load_wordpiece_tokenizer(const std::string& vocab_path, bool lowercase) {
  WordPieceSpec spec;
  spec.source = vocab_path;
  spec.tokens = tokenizer_detail::read_token_lines(vocab_path);
  spec.lowercase = spec.strip_accents = lowercase;
  spec.specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};  // BertTokenizer's, where the vocabulary has them
  return make_wordpiece_tokenizer(std::move(spec));
}

}  // namespace aw
