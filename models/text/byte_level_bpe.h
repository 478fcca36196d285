// models/text/byte_level_bpe.h — what a byte-level BPE tokenizer (or a SentencePiece-style BPE or
// Unigram one, over characters) is made of, whichever files it
// comes from: GPT-2's vocab.json + merges.txt (tokenizer_gpt2.cpp) or a Hugging Face tokenizer.json
// (tokenizer_hf_json.cpp); byte_level_bpe.cpp builds the tokenizer from it. Internal to models/text;
// the loaders are declared in tokenizer.h and hf_tokenizer.h.
#pragma once

#include "models/text/tokenizer.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw::tokenizer_detail {

// GPT-2's pre-tokenisation pattern (PCRE2 syntax), which ByteLevel's use_regex applies.
extern const char* const kGpt2PiecePattern;

struct ByteLevelBpeSpec {
  std::string kind;          // Tokenizer::kind(): "gpt2_bpe" or "hf_bpe"
  std::string vocab_source;  // the file named in messages about the vocabulary
  std::vector<std::string> spellings;  // index = id, as the file spells tokens ("Ġthe")

  struct MergeEntry {
    std::string left, right;
    std::string where;  // prefix of messages about it: "line 3: ", "model.merges[2]: "
  };
  std::string merges_source;
  std::vector<MergeEntry> merges;  // earliest first merged
  // Llama 3's BPE option: a piece that is a vocabulary token as a whole is that token, merged or not.
  bool ignore_merges = false;

  // SentencePiece-style BPE (Llama 2, TinyLlama) instead of byte-level: the symbols are the text's
  // characters, spelt as in the vocabulary ("▁the"); a character the vocabulary lacks becomes its
  // UTF-8 bytes' "<0xNN>" tokens (byte_fallback) or the unknown token (runs of them fused into one
  // with fuse_unk).
  bool character_symbols = false;
  bool byte_fallback = false;
  int64_t unk_id = -1;
  bool fuse_unk = false;
  // A Unigram model (T5, XLM-R, mBART style; character symbols): each token's log-probability, index =
  // id; a piece is the segmentation with the largest sum (Viterbi), a character no token covers the
  // unknown token at the lowest score − 10 (or its bytes with byte_fallback). Empty for BPE.
  std::vector<double> unigram_scores;

  // The normalizer, in order: NFC, Prepend (`text` before a non-empty text), Replace (each `text`
  // by `by`, literally).
  struct Normalizer {
    enum class Kind { Nfc, Prepend, Replace };
    Kind kind = Kind::Nfc;
    std::string text, by;
  };
  std::vector<Normalizer> normalizers;

  // Pre-tokenisation, in order. Split: each piece may get a space before it (when it does not start
  // with one), then is cut by `pattern` (matches and the text between them are pieces). Metaspace:
  // spaces become `replacement`, which is put before the text (prepend "always", or "first": only
  // before the text's first stretch), and with `split` each piece starts at a replacement.
  struct Step {
    enum class Kind { Split, Metaspace };
    Kind kind = Kind::Split;
    std::string pattern;  // PCRE2; empty = no split
    bool add_prefix_space = false;
    std::string replacement;
    std::string prepend_scheme;
    bool split = false;

    static Step split_by(std::string pattern, bool add_prefix_space) {
      Step step;
      step.pattern = std::move(pattern);
      step.add_prefix_space = add_prefix_space;
      return step;
    }
  };
  std::vector<Step> steps;

  // decode of character symbols: `space_symbol` back to " ", then up to `strip_leading` spaces off
  // the start (the Replace and Strip decoders, or Metaspace's).
  std::string space_symbol;
  int strip_leading = 0;
  bool decode_fallback_bytes = false;  // <0xNN> tokens decode to their bytes (a ByteFallback decoder)

  // Tokens matched in the text before anything else, as Hugging Face's added tokens: the leftmost
  // match, the longest there. `normalized` ones are matched in the normalized text, the others in
  // the raw text; lstrip/rstrip take the white space beside a match with it.
  struct AddedToken {
    std::string content;
    int64_t id = 0;
    bool special = false;  // decode skips it (skip_special_tokens=True)
    bool normalized = false;
    bool lstrip = false, rstrip = false;
  };
  std::vector<AddedToken> added;

  std::vector<int64_t> prefix_ids, suffix_ids;  // the post-processor's template around a text's ids
};

// The spellings of a JSON object of spelling → id (ids 0..n-1 each once), index = id; `where`
// prefixes messages ("model.vocab: "). Throws aw::Error naming `path` as read_vocab_json does.
std::vector<std::string> vocab_spellings(const nlohmann::json& vocab, const std::string& path, const std::string& where,
                                         const std::string& noun);

// Throws aw::Error naming the vocab or merges source for a merge of unknown tokens, a repeated merge
// or a pattern PCRE2 does not compile.
std::unique_ptr<Tokenizer> make_byte_level_bpe(ByteLevelBpeSpec spec);

}  // namespace aw::tokenizer_detail
