// models/text/bleu.cpp — see bleu.h. Every step follows sacreBLEU's Python on str, so text is
// decoded to code points first; n-grams are keyed by their tokens (or characters) joined with ' ',
// which no 13a token contains, so one map holds all orders without collisions.
#include "models/text/bleu.h"

#include "models/errors.h"
#include "models/text/tokenizer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace aw {
namespace {

constexpr int kMaxOrder = 4;      // BLEU's n-gram orders 1..4
constexpr int kCharOrder = 6;     // chrF's character n-gram orders 1..6
constexpr double kChrfBeta = 2;   // recall counts β² = 4 times as much as precision
// sacreBLEU's my_log: log(0) is floored to this instead of −∞ (only reachable when an order has no
// hypothesis n-gram at all, which then drives the score to exp(−2.5e9) = 0).
constexpr double kLogOfZero = -9999999999.0;

using CodePoints = std::u32string;
using NgramCounts = std::unordered_map<CodePoints, int64_t>;

// Python's str.isspace(), which str.split() and str.rstrip() use (Unicode 14, Python 3.11).
bool is_python_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }

// The first 13a regex's class [{-~[-` -&(-+:-@/]: ASCII punctuation except ' (kept inside words) and , - .
bool is_13a_symbol(char32_t c) {
  return (c >= U'{' && c <= U'~') || (c >= U'[' && c <= U'`') || (c >= U' ' && c <= U'&') || (c >= U'(' && c <= U'+') ||
         (c >= U':' && c <= U'@') || c == U'/';
}

bool is_period_or_comma(char32_t c) { return c == U'.' || c == U','; }

// Python's str.replace: every non-overlapping occurrence, left to right.
CodePoints replace_all(const CodePoints& text, const CodePoints& from, const CodePoints& to) {
  CodePoints replaced;
  size_t start = 0;
  for (size_t found; (found = text.find(from, start)) != CodePoints::npos; start = found + from.size())
    replaced.append(text, start, found - start).append(to);
  return replaced.append(text, start, CodePoints::npos);
}

// Python's re.sub of a two-character pattern (first class)(second class) → `replace(first, second)`:
// leftmost match first, scanning resumes after the match, so matches never overlap ("a,.5" keeps ".5").
template <typename First, typename Second, typename Replace>
CodePoints substitute_pairs(const CodePoints& text, First first, Second second, Replace replace) {
  CodePoints substituted;
  size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      replace(substituted, text[i], text[i + 1]);
      i += 2;
    } else {
      substituted += text[i++];
    }
  }
  return substituted;
}

std::vector<CodePoints> split_on_whitespace(const CodePoints& text) {
  std::vector<CodePoints> words;
  CodePoints word;
  for (char32_t c : text) {
    if (!is_python_whitespace(c)) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// sacreBLEU's Tokenizer13a followed by its TokenizerRegexp, up to the final split on whitespace.
std::vector<CodePoints> tokens_13a(CodePoints line) {
  line = replace_all(line, U"<skipped>", U"");
  line = replace_all(line, U"-\n", U"");
  line = replace_all(line, U"\n", U" ");
  // One after the other, so "&amp;quot;" becomes "&quot;", not '"'.
  line = replace_all(line, U"&quot;", U"\"");
  line = replace_all(line, U"&amp;", U"&");
  line = replace_all(line, U"&lt;", U"<");
  line = replace_all(line, U"&gt;", U">");
  // The padding matters: it gives a leading ".5" a non-digit neighbour, so it splits.
  line = U" " + line + U" ";

  CodePoints isolated;
  for (char32_t c : line) {
    if (is_13a_symbol(c)) {
      isolated += U' ';
      isolated += c;
      isolated += U' ';
    } else {
      isolated += c;
    }
  }
  const auto not_digit = [](char32_t c) { return !is_digit(c); };
  // Period and comma split off unless preceded by a digit: \1 \2␠
  line = substitute_pairs(isolated, not_digit, is_period_or_comma, [](CodePoints& out, char32_t a, char32_t b) {
    out += {a, U' ', b, U' '};
  });
  // … and unless followed by a digit: ␠\1 \2
  line = substitute_pairs(line, is_period_or_comma, not_digit, [](CodePoints& out, char32_t a, char32_t b) {
    out += {U' ', a, U' ', b};
  });
  // A dash after a digit: \1 \2␠
  line = substitute_pairs(line, is_digit, [](char32_t c) { return c == U'-'; },
                          [](CodePoints& out, char32_t a, char32_t b) { out += {a, U' ', b, U' '}; });
  return split_on_whitespace(line);
}

CodePoints strip_trailing_whitespace(CodePoints text) {
  while (!text.empty() && is_python_whitespace(text.back())) text.pop_back();
  return text;
}

std::string encode(const CodePoints& code_points) {
  std::string text;
  for (char32_t c : code_points) tokenizer_detail::append_utf8(text, c);
  return text;
}

// `what` ("hypothesis") and its 1-based number name the line when it is not UTF-8.
CodePoints decode(const std::string& text, const char* metric, const char* what, size_t index) {
  try {
    return tokenizer_detail::decode_utf8(text);
  } catch (const Error& error) {
    throw Error(std::string(metric) + ": " + what + " " + std::to_string(index + 1) + ": " + error.what());
  }
}

// "1 hypothesis", "3 hypotheses".
std::string count_of(size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

void require_same_size(const char* metric, const std::vector<std::string>& hypotheses,
                       const std::vector<std::string>& references) {
  // sacreBLEU zips the two lists and silently drops the longer one's tail; a mismatch is a mistake.
  if (hypotheses.size() != references.size())
    throw Error(std::string(metric) + ": " + count_of(hypotheses.size(), "hypothesis", "hypotheses") + " but " +
                count_of(references.size(), "reference", "references"));
}

// All n-grams of orders 1..max_order of `units`, each keyed by its units joined with ' '.
NgramCounts count_ngrams(const std::vector<CodePoints>& units, int max_order) {
  NgramCounts counts;
  for (size_t start = 0; start < units.size(); ++start) {
    CodePoints ngram = units[start];
    ++counts[ngram];
    for (size_t end = start + 1; end < units.size() && end - start < static_cast<size_t>(max_order); ++end) {
      ngram += U' ';
      ngram += units[end];
      ++counts[ngram];
    }
  }
  return counts;
}

int ngram_order(const CodePoints& key) { return 1 + static_cast<int>(std::count(key.begin(), key.end(), U' ')); }

// sacreBLEU's BLEU.compute_bleu with smooth_method "exp" and effective_order off; the arithmetic is
// written in the same order as the Python so the results agree to the last bits.
void finish_bleu(BleuScore& bleu) {
  const auto c = bleu.hypothesis_length;
  const auto r = bleu.reference_length;
  bleu.brevity_penalty = 1.0;
  if (c < r) bleu.brevity_penalty = c > 0 ? std::exp(1.0 - static_cast<double>(r) / static_cast<double>(c)) : 0.0;

  bleu.precisions.fill(0.0);
  bleu.score = 0.0;
  if (std::all_of(bleu.matches.begin(), bleu.matches.end(), [](int64_t m) { return m == 0; })) return;

  double smoothing = 1.0;
  for (int n = 0; n < kMaxOrder; ++n) {
    // An order without hypothesis n-grams keeps precision 0 and ends the loop (so do all above it).
    if (bleu.totals[n] == 0) break;
    const auto total = static_cast<double>(bleu.totals[n]);
    if (bleu.matches[n] == 0) {
      smoothing *= 2;
      bleu.precisions[n] = 100.0 / (smoothing * total);
    } else {
      bleu.precisions[n] = 100.0 * static_cast<double>(bleu.matches[n]) / total;
    }
  }
  double log_sum = 0.0;
  for (double precision : bleu.precisions) log_sum += precision == 0.0 ? kLogOfZero : std::log(precision);
  bleu.score = bleu.brevity_penalty * std::exp(log_sum / kMaxOrder);
}

// Per chrF order: hypothesis n-grams, reference n-grams, clipped matches — summed over the corpus.
struct CharOrderCounts {
  int64_t hypothesis = 0, reference = 0, matched = 0;
};

// sacreBLEU's CHRF._compute_f_score with eps_smoothing off.
double chrf_from_counts(const std::array<CharOrderCounts, kCharOrder>& counts) {
  constexpr double kFactor = kChrfBeta * kChrfBeta;
  double precision_sum = 0.0, recall_sum = 0.0;
  int effective_order = 0;
  for (const auto& order : counts) {
    // Orders missing on either side are left out of the averages rather than counted as 0.
    if (order.hypothesis == 0 || order.reference == 0) continue;
    precision_sum += static_cast<double>(order.matched) / static_cast<double>(order.hypothesis);
    recall_sum += static_cast<double>(order.matched) / static_cast<double>(order.reference);
    ++effective_order;
  }
  if (effective_order == 0) return 0.0;
  const double precision = precision_sum / effective_order;
  const double recall = recall_sum / effective_order;
  if (precision + recall == 0.0) return 0.0;
  double f_score = (1 + kFactor) * precision * recall;
  f_score /= kFactor * precision + recall;
  return 100 * f_score;
}

}  // namespace

std::string BleuScore::signature() const { return "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:aw"; }

std::string tokenize_13a(const std::string& line) {
  std::string tokenized;
  for (const auto& token : tokens_13a(tokenizer_detail::decode_utf8(line))) {
    if (!tokenized.empty()) tokenized += ' ';
    tokenized += encode(token);
  }
  return tokenized;
}

BleuStatistics sentence_bleu_statistics(const std::string& hypothesis, const std::string& reference, size_t index) {
  // sacreBLEU strips trailing whitespace before 13a, so a final "-\n" is kept as "-".
  const auto hypothesis_tokens = tokens_13a(strip_trailing_whitespace(decode(hypothesis, "BLEU", "hypothesis", index)));
  const auto reference_tokens = tokens_13a(strip_trailing_whitespace(decode(reference, "BLEU", "reference", index)));
  BleuStatistics statistics{};
  statistics[2 * kMaxOrder] = static_cast<int64_t>(hypothesis_tokens.size());
  statistics[2 * kMaxOrder + 1] = static_cast<int64_t>(reference_tokens.size());
  const auto reference_counts = count_ngrams(reference_tokens, kMaxOrder);
  for (const auto& [ngram, count] : count_ngrams(hypothesis_tokens, kMaxOrder)) {
    const int n = ngram_order(ngram) - 1;
    statistics[kMaxOrder + n] += count;
    const auto found = reference_counts.find(ngram);
    if (found != reference_counts.end()) statistics[n] += std::min(count, found->second);
  }
  return statistics;
}

BleuScore bleu_from_statistics(const BleuStatistics& sums) {
  BleuScore bleu;
  for (int n = 0; n < kMaxOrder; ++n) {
    bleu.matches[n] = sums[n];
    bleu.totals[n] = sums[kMaxOrder + n];
  }
  bleu.hypothesis_length = sums[2 * kMaxOrder];
  bleu.reference_length = sums[2 * kMaxOrder + 1];
  finish_bleu(bleu);
  return bleu;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  require_same_size("BLEU", hypotheses, references);
  BleuStatistics sums{};
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const auto sentence = sentence_bleu_statistics(hypotheses[i], references[i], i);
    for (int k = 0; k < kBleuStatistics; ++k) sums[k] += sentence[k];
  }
  return bleu_from_statistics(sums);
}

double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  require_same_size("chrF", hypotheses, references);
  std::array<CharOrderCounts, kCharOrder> counts;
  // The characters of a line with every whitespace character removed, one n-gram unit each.
  const auto characters = [](const CodePoints& line) {
    std::vector<CodePoints> kept;
    for (char32_t c : line)
      if (!is_python_whitespace(c)) kept.emplace_back(1, c);
    return kept;
  };
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const auto hypothesis_chars = characters(decode(hypotheses[i], "chrF", "hypothesis", i));
    const auto reference_chars = characters(decode(references[i], "chrF", "reference", i));
    const auto hypothesis_counts = count_ngrams(hypothesis_chars, kCharOrder);
    const auto reference_counts = count_ngrams(reference_chars, kCharOrder);

    std::array<CharOrderCounts, kCharOrder> line_counts;
    for (const auto& [ngram, count] : reference_counts) line_counts[ngram_order(ngram) - 1].reference += count;
    for (const auto& [ngram, count] : hypothesis_counts) {
      auto& order = line_counts[ngram_order(ngram) - 1];
      order.hypothesis += count;
      const auto found = reference_counts.find(ngram);
      if (found != reference_counts.end()) order.matched += std::min(count, found->second);
    }
    for (int n = 0; n < kCharOrder; ++n) {
      // sacreBLEU counts a line's hypothesis n-grams only when its reference has n-grams of that order.
      if (line_counts[n].reference > 0) counts[n].hypothesis += line_counts[n].hypothesis;
      counts[n].reference += line_counts[n].reference;
      counts[n].matched += line_counts[n].matched;
    }
  }
  return chrf_from_counts(counts);
}

}  // namespace aw
