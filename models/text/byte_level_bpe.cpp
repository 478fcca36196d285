// models/text/byte_level_bpe.cpp — the BPE tokenizer a ByteLevelBpeSpec describes, whichever files it
// came from (tokenizer_gpt2.cpp: GPT-2's vocab.json + merges.txt; tokenizer_hf_json.cpp: a
// tokenizer.json). It gives the ids Hugging Face's tokenizers give for the same files and text.
//
// Text → added tokens split off → normalizers (NFC, Prepend, Replace) → pieces (each
// pre-tokenisation step; bpe_pre_tokenizer.cpp) → each piece's UTF-8 bytes → one symbol per byte
// (GPT-2's printable stand-ins, which is how the vocabulary spells tokens; byte_level_text.cpp) → BPE
// merges by rank (bpe_merges.cpp) → ids. SentencePiece-style BPE (a tokenizer.json with
// byte_fallback) starts instead from one symbol per character, spelt as itself ("▁"), bytes' <0xNN>
// tokens for characters it lacks. A tokenizer.json's added tokens are matched and its template added;
// GPT-2's files have neither, and "<|endoftext|>" inside the text is ordinary text there.
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
#include "models/text/byte_level_bpe.h"

#include "models/errors.h"
#include "models/text/bpe_merges.h"
#include "models/text/bpe_pre_tokenizer.h"
#include "models/text/byte_level_text.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace aw::tokenizer_detail {
namespace {

std::string hex_byte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", static_cast<unsigned>(byte));
  return text;
}

// Pieces are cached by their bytes up to this length; the cache is emptied when it reaches kCacheLimit.
constexpr size_t kCachedPieceBytes = 64;
constexpr size_t kCacheLimit = 1 << 16;

class ByteLevelBpeTokenizer final : public TableTokenizer {
 public:
  explicit ByteLevelBpeTokenizer(ByteLevelBpeSpec spec) : spec_(std::move(spec)) {
    read_vocab();
    read_merges();
    for (const auto ids : {&spec_.prefix_ids, &spec_.suffix_ids})
      for (const int64_t id : *ids)
        if (id < 0 || id >= vocab_size())
          fail_in_file(spec_.vocab_source, "the template's special token id " + std::to_string(id) + " is outside the " +
                                               std::to_string(vocab_size()) + " tokens");
    pre_tokenizer_ = BpePreTokenizer(spec_);  // last, so that the vocabulary's and merges' errors come first
  }

  Encoding encode(const std::string& text) const override {
    require_utf8(text);  // the pre-tokenizer's patterns run without PCRE2's own check
    Encoding encoding;
    const auto add = [&](int64_t id) {
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(0);
    };
    for (const int64_t id : spec_.prefix_ids) add(id);
    for (const auto& raw : pre_tokenizer_.split_added(text, /*normalized=*/false)) {
      if (raw.added_id >= 0) {
        add(raw.added_id);
        continue;
      }
      for (const auto& piece : pre_tokenizer_.split_added(pre_tokenizer_.normalize(raw.text), /*normalized=*/true)) {
        if (piece.added_id >= 0) {
          add(piece.added_id);
          continue;
        }
        for (const auto& pre_token : pre_tokenizer_.pre_tokenize(piece.text, /*first=*/encoding.ids.size() == spec_.prefix_ids.size()))
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
      for (const char32_t symbol : decode_utf8(spellings_[static_cast<size_t>(id)])) {
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
      if (fallback_byte_[index] >= 0 && spec_.decode_fallback_bytes) bytes += static_cast<char>(fallback_byte_[index]);
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
    for (const auto& token : spec_.added) added_text_[static_cast<size_t>(token.id)] = true;
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
    // Without added tokens (GPT-2's files) the specials are the entries BPE never produces; a Unigram
    // model may produce any of its tokens.
    const bool unigram = !spec_.unigram_scores.empty();
    skipped_.assign(size, false);
    for (size_t id = 0; id < size; ++id) skipped_[id] = spec_.added.empty() && !produced[id] && !unigram;
    if (unigram) {
      unknown_score_ = *std::min_element(spec_.unigram_scores.begin(), spec_.unigram_scores.end()) - 10.0;
      for (const auto& spelling : spellings_)
        longest_token_ = std::max(longest_token_, decode_utf8(spelling).size());
    }
    for (const auto& token : spec_.added) skipped_[static_cast<size_t>(token.id)] = token.special;
  }

  void read_merges() {
    std::unordered_map<uint64_t, std::string> where_of_merge;  // pair key → where the file has it
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
      const auto key = BpeMergeTable::pair_key(left, right);
      const auto [previous, inserted] = where_of_merge.emplace(key, where);
      if (!inserted) fail_in_file(spec_.merges_source, where + merge + " repeats " + previous->second.substr(0, previous->second.size() - 2));
      if (merges_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max()))
        fail_in_file(spec_.merges_source, where + "too many merges");
      merges_.add(left, right, result);
    }
    spec_.merges.clear();
    spec_.merges.shrink_to_fit();
  }

  // The ids of one piece, through the cache for short pieces.
  std::vector<int64_t> piece_ids(const std::string& piece) const {
    if (piece.size() <= kCachedPieceBytes) {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      const auto cached = cache_.find(piece);
      if (cached != cache_.end()) return cached->second;
    }
    auto ids = whole_token(piece);
    if (!spec_.unigram_scores.empty()) ids = unigram_ids(piece);
    else if (ids.empty()) ids = merges_.merge(spec_.character_symbols ? character_ids(piece) : byte_symbol_ids(piece));
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
      append_unknown(character, symbols);
    }
    return symbols;
  }

  // A character the vocabulary lacks: its bytes' <0xNN> tokens (byte_fallback), else the unknown
  // token (a run of them one, with fuse_unk), appended to `ids`.
  void append_unknown(const std::string& character, std::vector<int64_t>& ids) const {
    std::vector<int64_t> bytes;
    for (const char c : character) bytes.push_back(byte_fallback_ids_[static_cast<unsigned char>(c)]);
    if (spec_.byte_fallback && std::find(bytes.begin(), bytes.end(), -1) == bytes.end()) {
      ids.insert(ids.end(), bytes.begin(), bytes.end());
    } else if (spec_.unk_id >= 0) {
      if (!(spec_.fuse_unk && !ids.empty() && ids.back() == spec_.unk_id)) ids.push_back(spec_.unk_id);
    } else {
      fail_in_file(spec_.vocab_source, "has no token for the character " + quoted_excerpt(character) +
                                           " and no unknown token, and the text needs it");
    }
  }

  // Unigram: the segmentation of `piece` into vocabulary tokens with the largest sum of scores
  // (Viterbi over character boundaries; on a tie the token that starts earliest, as the library's
  // lattice keeps the first). A character no token starts with alone is the unknown token at the
  // lowest score − 10, then its bytes (byte_fallback) or the unknown token, runs of which are fused.
  std::vector<int64_t> unigram_ids(const std::string& piece) const {
    std::vector<size_t> bounds = {0};  // character boundaries, in bytes
    for (size_t pos = 0; pos < piece.size();) bounds.push_back(pos += std::max<size_t>(1, utf8_sequence_length(piece, pos)));
    const size_t characters = bounds.size() - 1;
    constexpr int64_t kUnknown = -2;
    std::vector<double> best(characters + 1, -std::numeric_limits<double>::infinity());
    std::vector<std::pair<int64_t, size_t>> back(characters + 1, {kUnknown, 0});  // token (or unknown), start
    best[0] = 0;
    for (size_t start = 0; start < characters; ++start) {
      if (best[start] == -std::numeric_limits<double>::infinity()) continue;
      bool single = false;
      for (size_t end = start + 1; end <= std::min(characters, start + longest_token_); ++end) {
        const int64_t id = token_id(piece.substr(bounds[start], bounds[end] - bounds[start]));
        if (id < 0 || added_text_[static_cast<size_t>(id)]) continue;
        single = single || end == start + 1;
        const double score = best[start] + spec_.unigram_scores[static_cast<size_t>(id)];
        if (score > best[end]) best[end] = score, back[end] = {id, start};
      }
      if (!single && best[start] + unknown_score_ > best[start + 1])
        best[start + 1] = best[start] + unknown_score_, back[start + 1] = {kUnknown, start};
    }
    std::vector<std::pair<int64_t, size_t>> path;  // (token or unknown, start), last first
    for (size_t end = characters; end > 0; end = back[end].second) path.push_back(back[end]);
    std::vector<int64_t> ids;
    for (auto step = path.rbegin(); step != path.rend(); ++step) {
      if (step->first != kUnknown) {
        ids.push_back(step->first);
        continue;
      }
      append_unknown(piece.substr(bounds[step->second], bounds[step->second + 1] - bounds[step->second]), ids);
    }
    return ids;
  }

  ByteLevelBpeSpec spec_;                    // its spellings and merges moved into the tables below
  BpePreTokenizer pre_tokenizer_;            // added tokens, normalizers, pre-tokenisation
  std::vector<std::string> spellings_;       // index = id, as the file spells tokens ("Ġthe")
  std::vector<bool> added_text_;             // index = id: an added token, whose spelling is its text
  std::vector<bool> skipped_;                // index = id: a special token, which decode skips
  std::array<int64_t, 256> byte_ids_{};      // byte → id of its symbol, -1 if absent
  std::array<int64_t, 256> byte_fallback_ids_{};  // byte → id of its <0xNN> token, -1 if absent
  std::vector<int> fallback_byte_;           // index = id: the byte of a <0xNN> token, else -1
  BpeMergeTable merges_;
  size_t longest_token_ = 0;                 // Unigram: the longest token, in characters
  double unknown_score_ = 0;                 // Unigram: the unknown token's score (lowest − 10)
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int64_t>> cache_;  // piece bytes → ids
};

}  // namespace

std::unique_ptr<Tokenizer> make_byte_level_bpe(ByteLevelBpeSpec spec) {
  return std::make_unique<ByteLevelBpeTokenizer>(std::move(spec));
}

}  // namespace aw::tokenizer_detail
