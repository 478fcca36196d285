// models/text/syntax_hints.cpp — see syntax_hints.h.
#include "models/text/syntax_hints.h"

#include "models/errors.h"
#include "models/parse_number.h"
#include "models/text/split_fields.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace aw {
namespace {

[[noreturn]] void fail_at(const std::string& path, int64_t line, const std::string& message) {
  throw Error(path + ":" + std::to_string(line) + ": " + message);
}

bool is_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Checks a finished sentence's heads: each within 0..n, and the tree reaches the root without a cycle.
// Every head is range-checked before any walk: a walk follows later words' heads too.
void check_tree(const std::string& path, const ConlluSentence& sentence) {
  const auto n = static_cast<int64_t>(sentence.heads.size());
  for (int64_t word = 0; word < n; ++word)
    if (sentence.heads[word] > n)
      fail_at(path, sentence.lines[word],
              "HEAD " + std::to_string(sentence.heads[word]) + " is past the sentence's " + std::to_string(n) + " words");
  for (int64_t word = 0; word < n; ++word) {
    int64_t current = word + 1, steps = 0;
    while (current != 0 && steps++ <= n) current = sentence.heads[current - 1];
    if (current != 0) fail_at(path, sentence.lines[word], "HEAD links form a cycle (no path to the root)");
  }
}

}  // namespace

std::vector<ConlluSentence> read_conllu(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<ConlluSentence> sentences;
  ConlluSentence current;
  int64_t line_number = 0;
  auto finish = [&] {
    if (current.forms.empty()) return;
    check_tree(path, current);
    sentences.push_back(std::move(current));
    current = ConlluSentence();
  };
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    require_line_length(path, line_number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      finish();
      continue;
    }
    if (line[0] == '#') continue;
    const auto fields = split_fields(line, '\t');
    if (fields.size() != 10)
      fail_at(path, line_number, "expected 10 tab-separated fields, found " + std::to_string(fields.size()));
    const auto& id = fields[0];
    if (id.find('-') != std::string::npos || id.find('.') != std::string::npos) continue;  // multi-word token, empty node
    int64_t id_value = 0, head = 0;
    if (!is_digits(id) || !parse_integer(id, id_value)) fail_at(path, line_number, "ID " + quoted_excerpt(id) + " is not a word index");
    const auto expected = static_cast<int64_t>(current.forms.size()) + 1;
    if (id_value != expected)
      fail_at(path, line_number, "ID " + id + " where " + std::to_string(expected) + " was expected");
    if (!is_digits(fields[6]) || !parse_integer(fields[6], head))
      fail_at(path, line_number, "HEAD " + quoted_excerpt(fields[6]) + " is not a word index");
    if (fields[1].empty()) fail_at(path, line_number, "FORM is empty");
    auto form = fields[1];
    std::replace_if(form.begin(), form.end(), [](unsigned char c) { return std::isspace(c); }, '_');
    current.lines.push_back(line_number);
    current.forms.push_back(form);
    current.heads.push_back(head);
  }
  finish();
  if (sentences.empty()) fail_in_file(path, "holds no CoNLL-U sentence");
  return sentences;
}

bool is_conllu_path(const std::string& path) {
  const std::string suffix = ".conllu";
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string sentence_text(const ConlluSentence& sentence) {
  std::string text;
  for (const auto& form : sentence.forms) text += (text.empty() ? "" : " ") + form;
  return text;
}

std::vector<int64_t> syntax_hints(const ConlluSentence& sentence) {
  const auto n = static_cast<int64_t>(sentence.forms.size());
  std::vector<int64_t> hints(n + 1);
  for (int64_t t = 0; t <= n; ++t) {
    hints[t] = t;
    if (t + 1 >= n) continue;  // the target is "<eos>" or the next sentence
    // Walk up from the target x_{t+1} (1-based word t + 2) to the first ancestor left of it.
    for (int64_t ancestor = sentence.heads[t + 1]; ancestor != 0; ancestor = sentence.heads[ancestor - 1]) {
      if (ancestor - 1 <= t) {
        hints[t] = ancestor - 1;
        break;
      }
    }
  }
  return hints;
}

torch::Tensor window_hints(const std::vector<int64_t>& stream_hints, int64_t window) {
  const auto total = static_cast<int64_t>(stream_hints.size());
  const int64_t windows = (total + window - 1) / window;
  auto hints = torch::full({windows, window}, -1, torch::kLong);
  auto* out = hints.data_ptr<int64_t>();
  for (int64_t position = 0; position < total; ++position) {
    const int64_t start = position / window * window;
    const int64_t hint = stream_hints[position];
    out[position] = (hint >= start ? hint : position) - start;
  }
  return hints;
}

torch::Tensor pointer_loss(const std::vector<torch::Tensor>& attention, const torch::Tensor& hints) {
  TORCH_CHECK(!attention.empty(), "pointer_loss needs at least one layer's attention");
  const auto valid = hints.ge(0);                                                    // (B, n)
  const auto index = hints.clamp_min(0).unsqueeze(-1);                              // (B, n, 1)
  const auto positions = valid.sum().clamp_min(1).to(attention.front().scalar_type());
  auto total = torch::zeros({}, attention.front().options());
  for (const auto& layer : attention) {
    const auto mean_over_heads = layer.mean(1);                                      // (B, n, n)
    // The floor keeps log finite if a hint's weight underflows; it is far below any trained weight.
    const auto picked = mean_over_heads.gather(-1, index).squeeze(-1).clamp_min(1e-12);  // (B, n)
    total = total - torch::log(picked).masked_fill(~valid, 0.0).sum() / positions;
  }
  return total;
}

}  // namespace aw
