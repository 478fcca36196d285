// models/text/bleu.h — corpus BLEU and chrF for translation outputs, equal to sacreBLEU's defaults
// (checked against sacreBLEU 2.6.0 by tests/fixtures/bleu, written by scripts/fixtures/make_bleu_fixtures.py).
// Plain C++17: no LibTorch, so anything may link it.
//
// Text is UTF-8 and handled as code points, as Python handles str: "whitespace" is what Python's
// str.split() splits on (ASCII space and \t\n\v\f\r, \x1c-\x1f, U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), so the U+202F French writes before
// "!" separates tokens, and chrF drops it with the other spaces.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct BleuScore {
  double score = 0;                          // 0..100
  std::array<double, 4> precisions{};        // n-gram precisions in percent, smoothed, as sacreBLEU reports them
  double brevity_penalty = 0;                // exp(1 − r/c) when c < r, else 1; 0 when c = 0 < r
  int64_t hypothesis_length = 0;             // c: 13a tokens in all hypotheses
  int64_t reference_length = 0;              // r: 13a tokens in all references
  std::array<int64_t, 4> matches{}, totals{};  // clipped matching n-grams / hypothesis n-grams, n = 1..4

  // sacreBLEU 2.x's signature of the settings this score copies; "version:aw" says it was computed
  // here, not by sacreBLEU: "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:aw".
  std::string signature() const;
};

// The 13a tokenizer (mteval-v13a as sacreBLEU implements it), tokens joined by single spaces:
// "<skipped>" and "-\n" deleted, other newlines made spaces, &quot; &amp; &lt; &gt; unescaped (in that
// order, once each, so "&amp;quot;" ends as "& quot ;"), ASCII punctuation other than ' , - . split
// off, '.' and ',' split off unless between two digits (mteval's two regexes, matches never
// overlapping: "a,.5" → "a , .5"), '-' split off after a digit. Other Unicode punctuation (« … ’)
// stays attached. Throws aw::Error for text that is not valid UTF-8.
std::string tokenize_13a(const std::string& line);

// Corpus BLEU with one reference per hypothesis, sacreBLEU's defaults: 13a tokens (after stripping
// trailing whitespace), case-sensitive, n-grams up to 4, "exp" smoothing (the k-th order with no match
// counts 1 / (2^k · total) instead of 0), no effective order (an order with no hypothesis n-gram at all
// makes the score 0), and a score of 0 when no n-gram of any order matches.
// An empty corpus scores 0 with everything else 0 and BP 1 (sacreBLEU raises IndexError there).
// Throws aw::Error for lists of different sizes ("BLEU: 3 hypotheses but 4 references") and for a
// line that is not valid UTF-8 ("BLEU: hypothesis 2: text is not valid UTF-8 (byte offset 5)").
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

// One sentence's part of corpus BLEU, the counts corpus_bleu sums over the corpus: clipped matching
// n-grams of orders 1..4, hypothesis n-grams of orders 1..4, then the hypothesis and reference lengths
// (13a tokens). Summed over any selection of sentences (a bootstrap resample), bleu_from_statistics
// gives that selection's corpus BLEU. `index` names the line in errors, as corpus_bleu's do.
constexpr int kBleuStatistics = 10;
using BleuStatistics = std::array<int64_t, kBleuStatistics>;
BleuStatistics sentence_bleu_statistics(const std::string& hypothesis, const std::string& reference, size_t index = 0);
BleuScore bleu_from_statistics(const BleuStatistics& sums);

// Corpus chrF (0..100) with one reference per hypothesis, sacreBLEU's CHRF defaults: character n-grams
// of orders 1..6 with all whitespace removed, no word n-grams, β = 2, case-sensitive. Counts are summed
// over the corpus per order; precision and recall are averaged over the orders where both the
// hypotheses and the references have n-grams (sacreBLEU's "effective order"), and F_β is taken of the
// averages. A hypothesis's n-grams of an order its reference is too short to have are not counted.
// Empty corpus: 0 (sacreBLEU raises IndexError). Throws aw::Error as corpus_bleu ("chrF: …").
double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace aw
