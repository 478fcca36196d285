// models/text/bpe_pre_tokenizer.h — the text side of a byte-level (or SentencePiece-style) BPE
// tokenizer, before any merge: the added tokens split off, the normalizers (NFC, Prepend, Replace)
// and the pre-tokenisation steps (a PCRE2 pattern's Split, Metaspace) that cut the text into the
// pieces BPE merges within. Internal to models/text (byte_level_bpe.cpp).
#pragma once

#include "models/text/byte_level_bpe.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw::tokenizer_detail {

// One piece of text on its way through encode: a stretch still to tokenise, or an added token's id.
struct TextPiece {
  std::string text;
  int64_t added_id = -1;
};

class BpePreTokenizer {
 public:
  BpePreTokenizer();  // splits nothing off, normalises nothing, one piece per text
  // Keeps the spec's normalizers, steps and added tokens and compiles each step's pattern. Throws
  // aw::Error naming spec.vocab_source for a pattern PCRE2 does not compile.
  explicit BpePreTokenizer(const ByteLevelBpeSpec& spec);
  ~BpePreTokenizer();
  BpePreTokenizer(BpePreTokenizer&&) noexcept;
  BpePreTokenizer& operator=(BpePreTokenizer&&) noexcept;

  // The text cut at the added tokens of this kind (normalized or not): the leftmost match, the
  // longest there, lstrip/rstrip taking the blanks beside it.
  std::vector<TextPiece> split_added(const std::string& text, bool normalized) const;

  // The normalizers in order.
  std::string normalize(std::string text) const;

  // Each step in turn over every piece. `first`: the text is the start of what is encoded (no added
  // token before it), where Metaspace's "first" prepend scheme puts its replacement. The text must be
  // valid UTF-8 (the patterns run without PCRE2's check).
  std::vector<std::string> pre_tokenize(const std::string& text, bool first) const;

 private:
  struct CompiledPatterns;  // PCRE2's, one per step (null: no split)

  std::vector<ByteLevelBpeSpec::Normalizer> normalizers_;
  std::vector<ByteLevelBpeSpec::Step> steps_;
  std::vector<ByteLevelBpeSpec::AddedToken> added_;
  std::array<bool, 256> starts_added_{};  // byte → whether some added token starts with it
  std::unique_ptr<CompiledPatterns> patterns_;
};

}  // namespace aw::tokenizer_detail
