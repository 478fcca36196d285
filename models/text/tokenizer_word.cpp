// models/text/tokenizer_word.cpp — the word-level tokenizer of native models: whitespace split, one id
// per word, "<unk>" for words outside the vocabulary, no special tokens. With normalisation (the
// classifiers trained on raw reviews) ASCII letters are lowercased and ASCII punctuation other than
// ' and - becomes a token of its own, so "Great!" is "great" "!".
#include "models/text/tokenizer.h"

#include "models/errors.h"

#include <cctype>
#include <unordered_map>

namespace aw {
namespace {

// The characters std::istream's `>>` skips, so a vocabulary built by build_word_vocabulary splits
// text exactly as encode does.
bool is_word_separator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Punctuation that stands alone after normalisation; ' and - stay inside words ("don't", "re-make").
bool is_split_punctuation(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x80 && std::ispunct(byte) && c != '\'' && c != '-';
}

}  // namespace

std::vector<std::string> split_words(const std::string& text, bool normalize) {
  std::vector<std::string> words;
  std::string word;
  auto finish = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (const char c : text) {
    if (is_word_separator(c)) {
      finish();
    } else if (normalize && is_split_punctuation(c)) {
      finish();
      words.emplace_back(1, c);
    } else {
      word += normalize && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  finish();
  return words;
}

namespace {

class WordTokenizer final : public tokenizer_detail::TableTokenizer {
 public:
  WordTokenizer(const std::string& vocab_path, bool normalize) : normalize_(normalize) {
    set_tokens(tokenizer_detail::read_token_lines(vocab_path));
    const auto unk = ids_.find("<unk>");
    if (unk == ids_.end()) fail_in_file(vocab_path, "has no '<unk>' token (a word vocabulary needs one)");
    unk_id_ = unk->second;
  }

  Encoding encode(const std::string& text) const override {
    Encoding encoding;
    for (const auto& word : split_words(text, normalize_)) {
      const auto found = ids_.find(word);
      const int64_t id = found == ids_.end() ? unk_id_ : found->second;
      encoding.ids.push_back(id);
      encoding.tokens.push_back(texts_[static_cast<size_t>(id)]);
      encoding.type_ids.push_back(0);
    }
    return encoding;
  }

  // The tokens joined by single spaces; "<unk>" and "<eos>" are kept, being words of the vocabulary.
  std::string decode(const std::vector<int64_t>& ids) const override {
    std::string text;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) text += ' ';
      text += token_text(ids[i]);
    }
    return text;
  }

  std::string kind() const override { return "word"; }

 private:
  bool normalize_;
  int64_t unk_id_ = 0;
};

}  // namespace

std::unique_ptr<Tokenizer> load_word_tokenizer(const std::string& vocab_path, bool normalize) {
  return std::make_unique<WordTokenizer>(vocab_path, normalize);
}

}  // namespace aw
