// models/tokenizer_word.cpp — the word-level tokenizer of native models: whitespace split, one id
// per word, "<unk>" for words outside the vocabulary, no special tokens.
#include "models/tokenizer.h"

#include "models/errors.h"

#include <unordered_map>

namespace aw {
namespace {

// The characters std::istream's `>>` skips, so a vocabulary built by build_word_vocabulary splits
// text exactly as encode does.
bool is_word_separator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

class WordTokenizer final : public tokenizer_detail::TableTokenizer {
 public:
  explicit WordTokenizer(const std::string& vocab_path) {
    set_tokens(tokenizer_detail::read_token_lines(vocab_path));
    const auto unk = ids_.find("<unk>");
    if (unk == ids_.end()) fail_in_file(vocab_path, "has no '<unk>' token (a word vocabulary needs one)");
    unk_id_ = unk->second;
  }

  Encoding encode(const std::string& text) const override {
    Encoding encoding;
    size_t pos = 0;
    while (pos < text.size()) {
      while (pos < text.size() && is_word_separator(text[pos])) ++pos;
      const size_t start = pos;
      while (pos < text.size() && !is_word_separator(text[pos])) ++pos;
      if (pos == start) break;
      const auto found = ids_.find(text.substr(start, pos - start));
      const int64_t id = found == ids_.end() ? unk_id_ : found->second;
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(0);
    }
    return encoding;
  }

  std::string kind() const override { return "word"; }

 private:
  int64_t unk_id_ = 0;
};

}  // namespace

std::unique_ptr<Tokenizer> load_word_tokenizer(const std::string& vocab_path) {
  return std::make_unique<WordTokenizer>(vocab_path);
}

}  // namespace aw
