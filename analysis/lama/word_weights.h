// analysis/lama/word_weights.h — LAMA Figure 4 and Table 6 over documents' attention (lama_attention.h):
//   word weights   every occurrence of chosen words with its weight (mean over heads or one head,
//                  optionally × document length), grouped by the document's label
//   summary        count, mean and median per (word, label)
//   densities      a Gaussian KDE per (word, label) on a grid shared by the word's labels
//                  (Silverman's bandwidth, kernel_density.h)
//   shifts         per word and pair of labels, whether its weights differ (Mann–Whitney U)
//   keywords       per label, the words with the highest mean weight seen at least min_count times
// Plain structs in and out, so the CLI and the GUI call the same functions.
#pragma once

#include "analysis/lama/lama_attention.h"

#include "table/result_table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct WordWeight {
  std::string word;
  std::string label;     // class name
  double weight = 0.0;
  int64_t document = 0;  // DocumentAttention::index
  int64_t position = 0;  // 0-based word position in the document
};

struct WordLabelSummary {
  std::string word, label;
  int64_t count = 0;
  double mean = 0.0, median = 0.0;
};

struct WeightDensity {
  std::string word, label;
  int64_t count = 0;
  double bandwidth = 0.0;
  std::vector<double> x, density;  // the grid (shared by every label of the word) and f̂ on it
};

// Whether one word's weights differ between two labels' documents: the Mann–Whitney U test
// (significance.h: normal approximation, tie- and continuity-corrected, two-sided).
struct WeightShift {
  std::string word, label_a, label_b;  // label_a before label_b in class order
  int64_t count_a = 0, count_b = 0;
  double median_a = 0.0, median_b = 0.0;
  double u = 0.0;       // U of label_a's weights: pairs where a's weight is larger, ties counting ½
  double effect = 0.0;  // U / (count_a · count_b): P(a weight from label_a > one from label_b), 0.5 = no shift
  double p_value = 1.0;
  double p_adjusted = 1.0;  // Holm, across every row of the table
};

struct WordWeightSettings {
  std::vector<std::string> words;  // as the vocabulary spells them (resolve_words)
  WeightSelection selection;
  int64_t density_points = 100;
};

struct WordWeightReport {
  std::vector<WordWeight> occurrences;    // by word (settings order), label, document, position
  std::vector<WordLabelSummary> summary;  // (word, label) groups with at least one occurrence
  std::vector<WeightDensity> densities;   // same groups
  std::vector<WeightShift> shifts;        // per word, every pair of labels where it occurs
};

// The vocabulary spelling of each requested word (the tokenizer's normalisation applied, e.g.
// "Amazing" → "amazing"). Throws aw::Error for an empty list, a word the model only knows as
// "<unk>", or a text that is more than one word for this tokenizer.
std::vector<std::string> resolve_words(const Tokenizer& tokenizer, const std::vector<std::string>& words);

std::vector<WordWeight> collect_word_weights(const std::vector<DocumentAttention>& documents,
                                             const std::vector<std::string>& labels,
                                             const std::vector<std::string>& words, const WeightSelection& selection);
std::vector<WordLabelSummary> summarize_word_weights(const std::vector<WordWeight>& occurrences,
                                                     const std::vector<std::string>& labels,
                                                     const std::vector<std::string>& words);
std::vector<WeightDensity> word_weight_densities(const std::vector<WordWeight>& occurrences,
                                                 const std::vector<std::string>& labels,
                                                 const std::vector<std::string>& words, int64_t points = 100);
// Every pair of labels (class order) in which a word occurs, per word (settings order).
std::vector<WeightShift> word_weight_shifts(const std::vector<WordWeight>& occurrences,
                                            const std::vector<std::string>& labels,
                                            const std::vector<std::string>& words);
// The four above in one call.
WordWeightReport word_weight_report(const std::vector<DocumentAttention>& documents,
                                    const std::vector<std::string>& labels, const WordWeightSettings& settings);

struct KeywordSettings {
  WeightSelection selection;
  int64_t top = 10;
  int64_t min_count = 5;
  bool skip_punctuation = true;  // tokens made only of ASCII punctuation ("!", "...") are not keywords
};

struct Keyword {
  std::string label;
  int64_t rank = 0;  // 1-based within the label
  std::string word;
  double mean_weight = 0.0;
  int64_t count = 0;
};

// Per label (in class order): words by mean weight, highest first (ties: alphabetical), "<unk>"
// never counted. Labels with no word reaching min_count get no rows.
std::vector<Keyword> top_keywords(const std::vector<DocumentAttention>& documents,
                                  const std::vector<std::string>& labels, const KeywordSettings& settings);

// The result tables (no metadata: their columns are exactly the paper tables').
ResultTable word_weights_table(const std::vector<WordWeight>& occurrences);      // word,label,weight
ResultTable word_summary_table(const std::vector<WordLabelSummary>& summary);    // word,label,count,mean,median
ResultTable word_density_table(const std::vector<WeightDensity>& densities);     // word,label,bandwidth,x,density
ResultTable keywords_table(const std::vector<Keyword>& keywords);                // label,rank,word,mean_weight,count
// word,label_a,label_b,count_a,count_b,median_a,median_b,U,effect,p_value,p_adjusted
ResultTable word_shift_table(const std::vector<WeightShift>& shifts);

}  // namespace aw
