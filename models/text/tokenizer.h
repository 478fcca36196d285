// models/text/tokenizer.h — text → token ids for the four tokenizer families the workbench loads:
// word-level (native models), GPT-2 byte-level BPE, BERT WordPiece, and SentencePiece (Marian
// translation models, and the subword models `train_sentencepiece` makes for native ones).
// Encoding adds what the family expects and nothing else: BERT wraps in [CLS] … [SEP],
// SentencePiece appends </s> when asked to, GPT-2 and word-level add no special tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace aw {

struct Encoding {
  std::vector<int64_t> ids;          // token ids, in order
  std::vector<std::string> tokens;   // readable text of each token (for labels), same length as ids
  std::vector<int64_t> type_ids;     // segment id per token (0 / 1 for BERT pairs, else all 0)
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  virtual Encoding encode(const std::string& text) const = 0;
  // Sentence pairs (BERT: [CLS] a [SEP] b [SEP], type ids 0 then 1). Other families throw aw::Error.
  virtual Encoding encode_pair(const std::string& text_a, const std::string& text_b) const;

  virtual int64_t vocab_size() const = 0;
  // Readable text of one id (GPT-2: the decoded bytes, e.g. " the"; WordPiece: "##ing").
  virtual std::string token_text(int64_t id) const = 0;
  // Id of a token spelled exactly as in the vocabulary file, or -1.
  virtual int64_t token_id(const std::string& token) const = 0;
  // "word", "gpt2_bpe", "wordpiece" or "sentencepiece".
  virtual std::string kind() const = 0;

  // Ids → text, the way Hugging Face's decode(ids, skip_special_tokens=True) does for the family
  // (word-level: the tokens joined by single spaces). Throws aw::Error for an id outside the
  // vocabulary; this default throws "<kind> tokenizer cannot decode".
  virtual std::string decode(const std::vector<int64_t>& ids) const;
};

// Word-level: split on whitespace; unknown words map to "<unk>" (which the vocabulary must contain).
// vocab.txt: one token per line, the id is the line number (0-based). `normalize`: see split_words.
std::unique_ptr<Tokenizer> load_word_tokenizer(const std::string& vocab_path, bool normalize = false);

// The words the word-level tokenizer looks up: whitespace-separated; with `normalize`, ASCII letters
// lowercased and ASCII punctuation other than ' and - split off as one-character words.
std::vector<std::string> split_words(const std::string& text, bool normalize);

// GPT-2 byte-level BPE from Hugging Face files: vocab.json ({"token": id}) and merges.txt.
std::unique_ptr<Tokenizer> load_gpt2_tokenizer(const std::string& vocab_json_path,
                                               const std::string& merges_path);

// BERT WordPiece from vocab.txt (one token per line). lowercase also strips accents, as BERT uncased.
std::unique_ptr<Tokenizer> load_wordpiece_tokenizer(const std::string& vocab_path, bool lowercase);

// SentencePiece from a .spm / .model file, encoding as the library does (its own normalisation,
// "▁" marking a word start). Ids are the model's own ids, or, with `vocab_json_path` (Marian's
// vocab.json of piece → id, shared by source.spm and target.spm), the vocab.json ids, pieces
// missing from it becoming its "<unk>". `append_eos` ends every encoding with "</s>" (Marian does,
// for source and target). Token text is the piece ("▁chat"). decode drops <pad>, <s>, </s> and <unk>.
// Throws aw::Error naming the file for a missing or unreadable model, and a vocab.json that is not
// an object of piece → distinct ids 0..n-1 or lacks "<unk>" (or "</s>" when `append_eos`).
std::unique_ptr<Tokenizer> load_sentencepiece_tokenizer(const std::string& model_path,
                                                        const std::string& vocab_json_path, bool append_eos);

// Trains a SentencePiece model ("bpe" or "unigram") of `vocab_size` pieces on `sentences` and writes
// <model_prefix>.model and <model_prefix>.vocab (creating the folder). Special ids: <pad> 0, <unk> 1,
// <s> 2, </s> 3; every character of the sentences is covered. One thread and `seed`, so the same
// input gives the same model. Throws aw::Error for no sentences, a bad type or size, and when the
// library refuses (e.g. a vocabulary larger than the sentences allow).
void train_sentencepiece(const std::vector<std::string>& sentences, const std::string& model_prefix, int vocab_size,
                         const std::string& model_type, uint64_t seed);

// Helpers the tokenizer_*.cpp files share (defined in tokenizer.cpp); not part of the public API.
namespace tokenizer_detail {

// The id ↔ token tables every family keeps, and the three lookups over them.
class TableTokenizer : public Tokenizer {
 public:
  int64_t vocab_size() const override { return static_cast<int64_t>(texts_.size()); }
  // Throws aw::Error for an id outside the vocabulary.
  std::string token_text(int64_t id) const override;
  int64_t token_id(const std::string& token) const override;

 protected:
  // Texts and spellings the same (one token per line files): id = index.
  void set_tokens(std::vector<std::string> tokens);
  // Throws aw::Error for an id outside the vocabulary.
  void require_id(int64_t id) const;

  std::vector<std::string> texts_;                // index = id: the readable text of each token
  std::unordered_map<std::string, int64_t> ids_;  // spelling as in the vocabulary file → id
};

// The tokens of a one-token-per-line file (vocab.txt), index = id; a trailing '\r' is dropped.
// Throws aw::Error naming the file for a missing file, an empty or duplicate token, or no tokens.
std::vector<std::string> read_token_lines(const std::string& path);

// Byte length of the well-formed UTF-8 sequence that starts at text[pos], or 0 if it is ill-formed.
size_t utf8_sequence_length(const std::string& text, size_t pos);

// Code points of `text`; throws aw::Error "text is not valid UTF-8 (byte offset N)" at the first
// ill-formed sequence.
std::u32string decode_utf8(const std::string& text);
// The same check without decoding.
void require_utf8(const std::string& text);

void append_utf8(std::string& out, char32_t code_point);

// The spellings of a vocab.json ({"spelling": id, …}, ids 0..n-1 each once), index = id. `noun`
// names an entry in the messages ("token", "piece"). Throws aw::Error naming the file for an
// unreadable file, invalid JSON, not an object, no entries, a non-integer, out-of-range or repeated id.
std::vector<std::string> read_vocab_json(const std::string& path, const std::string& noun);

}  // namespace tokenizer_detail
}  // namespace aw
