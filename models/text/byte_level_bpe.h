// models/text/byte_level_bpe.h — what a byte-level BPE tokenizer is made of, whichever files it
// comes from: GPT-2's vocab.json + merges.txt (tokenizer_gpt2.cpp) or a Hugging Face tokenizer.json
// (tokenizer_hf_json.cpp). Internal to models/text; the loaders are declared in tokenizer.h and
// hf_tokenizer.h.
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

  bool nfc = false;  // the normalizer: Unicode NFC before pre-tokenisation

  // Pre-tokenisation, in order: each step may put a space before every piece that does not start
  // with one, then splits each piece by its pattern (matches and the text between them are pieces).
  struct Step {
    std::string pattern;  // PCRE2; empty = no split
    bool add_prefix_space = false;
  };
  std::vector<Step> steps;

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
