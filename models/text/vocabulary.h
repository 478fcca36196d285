// models/text/vocabulary.h — building a word-level vocabulary from training text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// Words of `path` (split on whitespace) seen at least `min_count` times, most frequent first (ties
// alphabetical), after "<unk>" (id 0) and "<eos>" (id 1). A "<unk>" already in the text (WikiText
// has them) is not listed twice. A ".conllu" file contributes its word forms. Throws aw::Error naming the file when it cannot be read or is empty.
std::vector<std::string> build_word_vocabulary(const std::string& path, int64_t min_count);

// The same from the texts of a labelled file (split as split_words(text, normalize) does), for the
// classifiers; `source` names the file in errors.
std::vector<std::string> build_text_vocabulary(const std::vector<std::string>& texts, int64_t min_count, bool normalize,
                                               const std::string& source);

}  // namespace aw
