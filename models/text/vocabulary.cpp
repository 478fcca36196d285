// models/text/vocabulary.cpp — see vocabulary.h.
#include "models/text/vocabulary.h"

#include "models/errors.h"
#include "models/text/syntax_hints.h"
#include "models/text/tokenizer.h"

#include <algorithm>
#include <fstream>
#include <unordered_map>

namespace aw {
namespace {

// "<unk>", "<eos>", then the words seen at least min_count times, most frequent first.
std::vector<std::string> vocabulary_from_counts(const std::unordered_map<std::string, int64_t>& counts,
                                                int64_t min_count) {
  std::vector<std::pair<std::string, int64_t>> kept;
  for (const auto& [text, count] : counts)
    if (count >= min_count && text != "<unk>" && text != "<eos>") kept.emplace_back(text, count);
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::string> vocabulary = {"<unk>", "<eos>"};
  for (const auto& item : kept) vocabulary.push_back(item.first);
  return vocabulary;
}

}  // namespace

std::vector<std::string> build_text_vocabulary(const std::vector<std::string>& texts, int64_t min_count, bool normalize,
                                               const std::string& source) {
  if (min_count < 1) throw Error("--min-count must be at least 1, got " + std::to_string(min_count));
  std::unordered_map<std::string, int64_t> counts;
  for (const auto& text : texts)
    for (const auto& word : split_words(text, normalize)) ++counts[word];
  if (counts.empty()) fail_in_file(source, "holds no words (empty text)");
  return vocabulary_from_counts(counts, min_count);
}

std::vector<std::string> build_word_vocabulary(const std::string& path, int64_t min_count) {
  if (min_count < 1) throw Error("--min-count must be at least 1, got " + std::to_string(min_count));
  std::unordered_map<std::string, int64_t> counts;
  if (is_conllu_path(path)) {
    for (const auto& sentence : read_conllu(path))
      for (const auto& form : sentence.forms) ++counts[form];
  } else {
    std::ifstream in(path);
    if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
    std::string word;
    while (in >> word) ++counts[word];
  }
  if (counts.empty()) fail_in_file(path, "holds no words (empty text)");
  return vocabulary_from_counts(counts, min_count);
}

}  // namespace aw
