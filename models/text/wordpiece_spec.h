// models/text/wordpiece_spec.h — what a WordPiece tokenizer is made of, from a vocab.txt (BERT's
// defaults) or a tokenizer.json (its BertNormalizer, WordPiece model and added tokens): the tokenizer
// itself is models/text/tokenizer_wordpiece.cpp, the tokenizer.json reader tokenizer_wordpiece_json.cpp.
#pragma once

#include "models/text/tokenizer.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {

struct WordPieceSpec {
  std::string source;                 // the file, for errors
  std::vector<std::string> tokens;    // index = id
  bool lowercase = true;
  bool strip_accents = true;          // NFD and drop non-spacing marks (BertNormalizer: lowercase when null)
  bool handle_chinese_chars = true;   // spaces around CJK ideographs
  std::string continuation = "##";    // before every piece of a word but the first
  int64_t max_word_characters = 100;  // a longer word is one unknown token
  std::string cls = "[CLS]", sep = "[SEP]", unk = "[UNK]";
  std::vector<std::string> specials;  // spelled in a text, each is one token (those in the vocabulary)
};

std::unique_ptr<Tokenizer> make_wordpiece_tokenizer(WordPieceSpec spec);

// A tokenizer.json whose model is WordPiece (sentence-transformers and BERT-family folders that ship no
// vocab.txt), read as the `tokenizers` library reads it: normalizer BertNormalizer (or none), pre-tokenizer
// BertPreTokenizer, post-processor TemplateProcessing or BertProcessing with a [CLS]-and-[SEP] form,
// added tokens matched in the raw text. Anything else is refused in one aw::Error naming the file and
// the feature. `json` is the file `path` already read (models/json_input.h).
std::unique_ptr<Tokenizer> load_wordpiece_json(const std::string& path, const nlohmann::json& json);

}  // namespace aw
