// models/text/corpus.cpp — corpus windows and labelled files (see corpus.h).
#include "models/text/corpus.h"

#include "models/errors.h"
#include "models/parse_number.h"
#include "models/text/syntax_hints.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace aw {
namespace {

// Pads rows of ids into one [b, n] batch with its attention mask.
ModelInput pad_batch(const std::vector<std::vector<int64_t>>& rows, const std::vector<std::vector<int64_t>>* types) {
  int64_t length = 0;
  for (const auto& row : rows) length = std::max<int64_t>(length, row.size());
  const auto count = static_cast<int64_t>(rows.size());
  auto ids = torch::zeros({count, length}, torch::kLong);
  auto mask = torch::zeros({count, length}, torch::kLong);
  auto type_ids = torch::zeros({count, length}, torch::kLong);
  for (int64_t i = 0; i < count; ++i) {
    const auto n = static_cast<int64_t>(rows[i].size());
    if (n == 0) continue;
    ids[i].narrow(0, 0, n).copy_(torch::tensor(rows[i], torch::kLong));
    mask[i].narrow(0, 0, n).fill_(1);
    if (types) type_ids[i].narrow(0, 0, n).copy_(torch::tensor((*types)[i], torch::kLong));
  }
  ModelInput input;
  input.input_ids = ids;
  input.attention_mask = mask;
  if (types) input.token_type_ids = type_ids;
  return input;
}

// Where make_window_batches' windows begin: every `window` tokens, leaving out a last window of a
// single token (it has no next token to predict) unless it is the only one.
std::vector<int64_t> window_starts(int64_t tokens, int64_t window) {
  if (window < 2) throw Error("--window must be at least 2 tokens, got " + std::to_string(window));
  std::vector<int64_t> starts;
  for (int64_t start = 0; start < tokens; start += window) {
    if (tokens - start == 1 && start > 0) break;
    starts.push_back(start);
  }
  return starts;
}

bool is_blank(const std::string& line) { return line.find_first_not_of(" \t\r\f\v") == std::string::npos; }

// Whether a blank line lies between two lines with text.
bool has_blank_line(const std::string& text) {
  std::istringstream lines(text);
  bool text_before = false, blank_since = false;
  for (std::string line; std::getline(lines, line);) {
    if (is_blank(line)) {
      blank_since = text_before;
    } else {
      if (blank_since) return true;
      text_before = true;
    }
  }
  return false;
}

// How many paragraphs `text` holds: runs of lines with text separated by at least
// `breaks_between` line breaks (2: a blank line; 1: every line).
int64_t count_paragraphs(const std::string& text, int breaks_between) {
  std::istringstream lines(text);
  int64_t paragraphs = 0;
  int breaks = 0;
  for (std::string line; std::getline(lines, line);) {
    ++breaks;
    if (is_blank(line)) continue;
    if (paragraphs == 0 || breaks >= breaks_between) ++paragraphs;
    breaks = 0;
  }
  return paragraphs;
}

// The same paragraph starts found again in the tokens' own text (byte-level BPE spells every byte):
// a paragraph begins at the first token with text after at least `breaks_between` line breaks.
std::vector<int64_t> paragraph_starts_in_tokens(const std::vector<std::string>& tokens, int breaks_between) {
  std::vector<int64_t> starts;
  int breaks = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    for (const char c : tokens[i]) {
      if (c == '\n') {
        ++breaks;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        const auto token = static_cast<int64_t>(i);
        if (starts.empty() || (breaks >= breaks_between && starts.back() != token)) starts.push_back(token);
        breaks = 0;
      }
    }
  }
  return starts;
}

bool is_integer_text(const std::string& text) {
  const size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  return text.size() > start && std::all_of(text.begin() + start, text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<int64_t> read_token_corpus(const std::string& path, const Tokenizer& tokenizer) {
  return read_token_paragraphs(path, tokenizer).ids;
}

TokenCorpus read_token_paragraphs(const std::string& path, const Tokenizer& tokenizer) {
  std::string text;
  if (is_conllu_path(path)) {
    for (const auto& sentence : read_conllu(path)) text += sentence_text(sentence) + "\n";
  } else {
    text = read_whole_file(path);
  }
  // A blank line separates paragraphs; a text without one has a paragraph per line.
  const int breaks_between = has_blank_line(text) ? 2 : 1;
  TokenCorpus corpus;
  auto& ids = corpus.ids;
  const int64_t eos = tokenizer.kind() == "word" ? tokenizer.token_id("<eos>") : -1;
  // A tokenizer's error (text that is not UTF-8) names neither the file nor the line: add them.
  auto encode = [&](const std::string& piece, const std::string& where) {
    try {
      return tokenizer.encode(piece);
    } catch (const Error& error) {
      fail_in_file(path, where + error.what());
    }
  };
  if (eos >= 0) {
    std::istringstream lines(text);
    std::string line;
    int breaks = 0;  // line breaks since the last line with tokens
    for (int64_t number = 1; std::getline(lines, line); ++number) {
      const auto encoded = encode(line, "line " + std::to_string(number) + ": ").ids;
      ++breaks;
      if (encoded.empty()) continue;
      if (ids.empty() || breaks >= breaks_between) corpus.paragraph_starts.push_back(static_cast<int64_t>(ids.size()));
      breaks = 0;
      ids.insert(ids.end(), encoded.begin(), encoded.end());
      ids.push_back(eos);
    }
  } else {
    auto encoding = encode(text, "");
    ids = std::move(encoding.ids);
    // Found again only if every paragraph is: a tokenizer that drops line breaks (WordPiece,
    // SentencePiece) or spells them otherwise leaves the paragraphs unknown rather than wrong.
    auto starts = paragraph_starts_in_tokens(encoding.tokens, breaks_between);
    if (static_cast<int64_t>(starts.size()) == count_paragraphs(text, breaks_between))
      corpus.paragraph_starts = std::move(starts);
  }
  if (ids.empty()) fail_in_file(path, "holds no tokens (empty text)");
  return corpus;
}

std::vector<int64_t> window_paragraphs(const TokenCorpus& corpus, int64_t window) {
  if (corpus.paragraph_starts.empty()) return {};
  std::vector<int64_t> paragraphs;
  int64_t last = -1, number = -1;
  for (const auto start : window_starts(static_cast<int64_t>(corpus.ids.size()), window)) {
    const auto& starts = corpus.paragraph_starts;
    const auto paragraph = std::upper_bound(starts.begin(), starts.end(), start) - starts.begin() - 1;
    if (paragraph != last) ++number;
    last = paragraph;
    paragraphs.push_back(number);
  }
  return paragraphs;
}

std::vector<ModelInput> make_window_batches(const std::vector<int64_t>& ids, int64_t window, int64_t batch_size) {
  if (batch_size < 1) throw Error("--batch must be at least 1, got " + std::to_string(batch_size));
  std::vector<ModelInput> batches;
  std::vector<std::vector<int64_t>> rows;
  for (const auto start : window_starts(static_cast<int64_t>(ids.size()), window)) {
    const auto end = std::min<int64_t>(static_cast<int64_t>(ids.size()), start + window);
    rows.emplace_back(ids.begin() + start, ids.begin() + end);
    if (static_cast<int64_t>(rows.size()) == batch_size) {
      batches.push_back(pad_batch(rows, nullptr));
      rows.clear();
    }
  }
  if (!rows.empty()) batches.push_back(pad_batch(rows, nullptr));
  return batches;
}

std::vector<LabelledExample> read_labelled_file(const std::string& path, const std::vector<std::string>& label_names) {
  return parse_labelled_text(read_whole_file(path), path, label_names);
}

std::vector<LabelledExample> parse_labelled_text(const std::string& text, const std::string& path,
                                                 const std::vector<std::string>& label_names) {
  const bool names_are_integers =
      !label_names.empty() && std::all_of(label_names.begin(), label_names.end(), is_integer_text);
  std::istringstream lines(text);
  std::string line;
  std::vector<LabelledExample> examples;
  for (int64_t number = 1; std::getline(lines, line); ++number) {
    require_line_length(path, number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto where = path + ": line " + std::to_string(number);
    const auto first_tab = line.find('\t');
    if (first_tab == std::string::npos) throw Error(where + ": expected label<TAB>text");
    const auto label_text = line.substr(0, first_tab);
    auto rest = line.substr(first_tab + 1);
    LabelledExample example;
    const auto second_tab = rest.find('\t');
    example.text_a = rest.substr(0, second_tab);
    if (second_tab != std::string::npos) example.text_b = rest.substr(second_tab + 1);

    const auto named = std::find(label_names.begin(), label_names.end(), label_text);
    if (named != label_names.end()) {
      example.label = named - label_names.begin();
    } else if (names_are_integers) {
      std::string names;
      for (const auto& name : label_names) names += (names.empty() ? "" : ", ") + name;
      throw Error(where + ": label " + quoted_excerpt(label_text) + " is not one of the model's classes (" + names + ")");
    } else {
      int64_t index = -1;
      if (!parse_integer(label_text, index) || index < 0 || index >= static_cast<int64_t>(label_names.size()))
        throw Error(where + ": label " + quoted_excerpt(label_text) + " is neither a class name nor an index 0.." +
                    std::to_string(label_names.size() - 1));
      example.label = index;
    }
    examples.push_back(std::move(example));
  }
  if (examples.empty()) fail_in_file(path, "holds no labelled lines");
  return examples;
}

std::vector<std::string> read_label_names(const std::string& path) {
  const auto text = read_whole_file(path);
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> names;
  for (int64_t number = 1; std::getline(lines, line); ++number) {
    require_line_length(path, number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos) throw Error(path + ": line " + std::to_string(number) + ": expected label<TAB>text");
    const auto label = line.substr(0, tab);
    if (std::find(names.begin(), names.end(), label) == names.end()) names.push_back(label);
  }
  if (names.empty()) fail_in_file(path, "holds no labelled lines");
  if (std::all_of(names.begin(), names.end(), is_integer_text)) {
    // Numeric labels in numeric order; one too long for 64 bits is an error, not an exception.
    std::vector<std::pair<int64_t, std::string>> numbered;
    for (const auto& name : names) {
      int64_t value = 0;
      if (!parse_integer(name, value)) fail_in_file(path, "label " + quoted_excerpt(name) + " is a number too large for a class index");
      numbered.emplace_back(value, name);
    }
    std::sort(numbered.begin(), numbered.end());
    for (size_t i = 0; i < names.size(); ++i) names[i] = numbered[i].second;
  } else {
    std::sort(names.begin(), names.end());
  }
  return names;
}

bool truncate_to_positions(Encoding& encoding, int64_t max_positions) {
  if (static_cast<int64_t>(encoding.ids.size()) <= max_positions) return false;
  // Keep the final token ([SEP]) so the sequence still ends the way the model was trained.
  for (auto* values : {&encoding.ids, &encoding.type_ids}) {
    (*values)[max_positions - 1] = values->back();
    values->resize(max_positions);
  }
  if (encoding.tokens.size() > static_cast<size_t>(max_positions)) {
    encoding.tokens[max_positions - 1] = encoding.tokens.back();
    encoding.tokens.resize(max_positions);
  }
  return true;
}

ClassifierBatches make_classifier_batches(const std::vector<LabelledExample>& examples, const Tokenizer& tokenizer,
                                          int64_t max_positions, int64_t batch_size) {
  if (batch_size < 1) throw Error("--batch must be at least 1, got " + std::to_string(batch_size));
  ClassifierBatches batches;
  std::vector<std::vector<int64_t>> rows, types;
  std::vector<int64_t> labels;
  auto flush = [&] {
    batches.inputs.push_back(pad_batch(rows, &types));
    batches.labels.push_back(torch::tensor(labels, torch::kLong));
    rows.clear();
    types.clear();
    labels.clear();
  };
  for (const auto& example : examples) {
    auto encoded = example.text_b.empty() ? tokenizer.encode(example.text_a)
                                          : tokenizer.encode_pair(example.text_a, example.text_b);
    if (truncate_to_positions(encoded, max_positions)) ++batches.truncated;
    rows.push_back(std::move(encoded.ids));
    types.push_back(std::move(encoded.type_ids));
    labels.push_back(example.label);
    if (static_cast<int64_t>(rows.size()) == batch_size) flush();
  }
  if (!rows.empty()) flush();
  return batches;
}

}  // namespace aw
