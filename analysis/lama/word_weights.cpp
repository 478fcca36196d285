// analysis/lama/word_weights.cpp — see word_weights.h.
#include "analysis/lama/word_weights.h"

#include "analysis/statistics/kernel_density.h"
#include "analysis/statistics/significance.h"
#include "models/errors.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

namespace aw {
namespace {

bool is_punctuation(const std::string& token) {
  return std::all_of(token.begin(), token.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x80 && std::ispunct(byte);
  });
}

// The weights of each (word, label) group, in word-then-label order.
std::vector<std::pair<std::pair<size_t, size_t>, std::vector<double>>> groups_of(
    const std::vector<WordWeight>& occurrences, const std::vector<std::string>& labels,
    const std::vector<std::string>& words) {
  std::map<std::pair<size_t, size_t>, std::vector<double>> grouped;
  for (const auto& occurrence : occurrences) {
    const auto word = std::find(words.begin(), words.end(), occurrence.word) - words.begin();
    const auto label = std::find(labels.begin(), labels.end(), occurrence.label) - labels.begin();
    grouped[{static_cast<size_t>(word), static_cast<size_t>(label)}].push_back(occurrence.weight);
  }
  return {grouped.begin(), grouped.end()};
}

}  // namespace

std::vector<std::string> resolve_words(const Tokenizer& tokenizer, const std::vector<std::string>& words) {
  if (words.empty()) throw Error("--words: no words given (expected a comma-separated list such as amazing,worst)");
  std::vector<std::string> spelled;
  for (const auto& word : words) {
    const auto encoding = tokenizer.encode(word);
    if (encoding.ids.empty()) throw Error("--words: an empty word in the list");
    if (encoding.ids.size() > 1)
      throw Error("--words: '" + word + "' is " + std::to_string(encoding.ids.size()) + " tokens for this model, not one word");
    if (encoding.tokens.front() == "<unk>" && word != "<unk>")
      throw Error("--words: '" + word + "' is not in the model's vocabulary");
    if (std::find(spelled.begin(), spelled.end(), encoding.tokens.front()) == spelled.end())
      spelled.push_back(encoding.tokens.front());
  }
  return spelled;
}

std::vector<WordWeight> collect_word_weights(const std::vector<DocumentAttention>& documents,
                                             const std::vector<std::string>& labels,
                                             const std::vector<std::string>& words, const WeightSelection& selection) {
  std::vector<WordWeight> occurrences;
  for (const auto& word : words)
    for (size_t label = 0; label < labels.size(); ++label)
      for (const auto& document : documents) {
        if (document.label != static_cast<int64_t>(label)) continue;
        for (int64_t position = 0; position < document.length(); ++position)
          if (document.tokens[position] == word)
            occurrences.push_back({word, labels[label], selected_weight(document, position, selection), document.index,
                                   position});
      }
  return occurrences;
}

std::vector<WordLabelSummary> summarize_word_weights(const std::vector<WordWeight>& occurrences,
                                                     const std::vector<std::string>& labels,
                                                     const std::vector<std::string>& words) {
  std::vector<WordLabelSummary> summary;
  for (const auto& [key, weights] : groups_of(occurrences, labels, words)) {
    WordLabelSummary row;
    row.word = words[key.first];
    row.label = labels[key.second];
    row.count = static_cast<int64_t>(weights.size());
    for (const double weight : weights) row.mean += weight;
    row.mean /= static_cast<double>(weights.size());
    row.median = median(weights);
    summary.push_back(row);
  }
  return summary;
}

std::vector<WeightShift> word_weight_shifts(const std::vector<WordWeight>& occurrences,
                                            const std::vector<std::string>& labels,
                                            const std::vector<std::string>& words) {
  const auto groups = groups_of(occurrences, labels, words);  // word-then-label order
  std::vector<WeightShift> shifts;
  for (size_t a = 0; a < groups.size(); ++a)
    for (size_t b = a + 1; b < groups.size() && groups[b].first.first == groups[a].first.first; ++b) {
      const auto& first = groups[a].second;
      const auto& second = groups[b].second;
      const auto test = mann_whitney_u(first, second);
      WeightShift shift;
      shift.word = words[groups[a].first.first];
      shift.label_a = labels[groups[a].first.second];
      shift.label_b = labels[groups[b].first.second];
      shift.count_a = static_cast<int64_t>(first.size());
      shift.count_b = static_cast<int64_t>(second.size());
      shift.median_a = median(first);
      shift.median_b = median(second);
      shift.u = test.statistic;
      shift.effect = test.statistic / (static_cast<double>(first.size()) * static_cast<double>(second.size()));
      shift.p_value = test.p_value;
      shifts.push_back(shift);
    }
  std::vector<double> p_values;
  for (const auto& shift : shifts) p_values.push_back(shift.p_value);
  const auto adjusted = holm_adjusted(p_values);
  for (size_t i = 0; i < shifts.size(); ++i) shifts[i].p_adjusted = adjusted[i];
  return shifts;
}

std::vector<WeightDensity> word_weight_densities(const std::vector<WordWeight>& occurrences,
                                                 const std::vector<std::string>& labels,
                                                 const std::vector<std::string>& words, int64_t points) {
  if (points < 2) throw Error("density grid needs at least 2 points, got " + std::to_string(points));
  const auto groups = groups_of(occurrences, labels, words);
  std::vector<WeightDensity> densities;
  for (size_t word = 0; word < words.size(); ++word) {
    // One grid per word, wide enough for every label's curve to reach its tails (3 bandwidths), and
    // never below 0 (weights are non-negative).
    double low = 0.0, high = 0.0, widest = 0.0;
    bool any = false;
    std::vector<std::pair<size_t, double>> bandwidths;  // (group index, bandwidth)
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].first.first != word) continue;
      const auto& weights = groups[g].second;
      const auto [min_it, max_it] = std::minmax_element(weights.begin(), weights.end());
      low = any ? std::min(low, *min_it) : *min_it;
      high = any ? std::max(high, *max_it) : *max_it;
      any = true;
      bandwidths.emplace_back(g, silverman_bandwidth(weights));
      widest = std::max(widest, bandwidths.back().second);
    }
    if (!any) continue;
    low = std::max(0.0, low - 3 * widest);
    high += 3 * widest;
    std::vector<double> grid(points);
    for (int64_t i = 0; i < points; ++i) grid[i] = low + (high - low) * static_cast<double>(i) / static_cast<double>(points - 1);
    for (const auto& [g, bandwidth] : bandwidths) {
      WeightDensity density;
      density.word = words[word];
      density.label = labels[groups[g].first.second];
      density.count = static_cast<int64_t>(groups[g].second.size());
      density.bandwidth = bandwidth;
      density.x = grid;
      density.density = gaussian_kde(groups[g].second, bandwidth, grid);
      densities.push_back(std::move(density));
    }
  }
  return densities;
}

WordWeightReport word_weight_report(const std::vector<DocumentAttention>& documents,
                                    const std::vector<std::string>& labels, const WordWeightSettings& settings) {
  WordWeightReport report;
  report.occurrences = collect_word_weights(documents, labels, settings.words, settings.selection);
  report.summary = summarize_word_weights(report.occurrences, labels, settings.words);
  report.densities = word_weight_densities(report.occurrences, labels, settings.words, settings.density_points);
  report.shifts = word_weight_shifts(report.occurrences, labels, settings.words);
  return report;
}

std::vector<Keyword> top_keywords(const std::vector<DocumentAttention>& documents,
                                  const std::vector<std::string>& labels, const KeywordSettings& settings) {
  if (settings.top < 1) throw Error("--top must be at least 1, got " + std::to_string(settings.top));
  // Per label: word → (sum of weights, occurrences).
  std::vector<std::map<std::string, std::pair<double, int64_t>>> totals(labels.size());
  for (const auto& document : documents) {
    auto& table = totals.at(static_cast<size_t>(document.label));
    for (int64_t position = 0; position < document.length(); ++position) {
      const auto& token = document.tokens[position];
      if (token == "<unk>" || (settings.skip_punctuation && is_punctuation(token))) continue;
      auto& entry = table[token];
      entry.first += selected_weight(document, position, settings.selection);
      ++entry.second;
    }
  }
  std::vector<Keyword> keywords;
  for (size_t label = 0; label < labels.size(); ++label) {
    std::vector<Keyword> candidates;
    for (const auto& [word, entry] : totals[label])
      if (entry.second >= settings.min_count)
        candidates.push_back({labels[label], 0, word, entry.first / static_cast<double>(entry.second), entry.second});
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Keyword& a, const Keyword& b) { return a.mean_weight > b.mean_weight; });
    const auto kept = std::min<size_t>(candidates.size(), static_cast<size_t>(settings.top));
    for (size_t i = 0; i < kept; ++i) {
      candidates[i].rank = static_cast<int64_t>(i) + 1;
      keywords.push_back(candidates[i]);
    }
  }
  return keywords;
}

namespace {

constexpr auto kText = ColumnType::Text;
constexpr auto kInteger = ColumnType::Integer;
constexpr auto kNumber = ColumnType::Number;

}  // namespace

ResultTable word_weights_table(const std::vector<WordWeight>& occurrences) {
  ResultTable table({{"word", kText}, {"label", kText}, {"weight", kNumber}});
  for (const auto& row : occurrences) table.row(row.word, row.label, row.weight);
  return table;
}

ResultTable word_summary_table(const std::vector<WordLabelSummary>& summary) {
  ResultTable table({{"word", kText}, {"label", kText}, {"count", kInteger}, {"mean", kNumber}, {"median", kNumber}});
  for (const auto& row : summary) table.row(row.word, row.label, row.count, row.mean, row.median);
  return table;
}

ResultTable word_density_table(const std::vector<WeightDensity>& densities) {
  // Each curve's count of weights in JSON only: the CSV's columns are the paper figure's.
  ResultTable table({{"word", kText}, {"label", kText}, {"bandwidth", kNumber}, {"x", kNumber}, {"density", kNumber},
                     {"count", kInteger, 6, false}});
  for (const auto& curve : densities)
    for (size_t i = 0; i < curve.x.size(); ++i)
      table.row(curve.word, curve.label, curve.bandwidth, curve.x[i], curve.density[i], curve.count);
  return table;
}

ResultTable keywords_table(const std::vector<Keyword>& keywords) {
  ResultTable table({{"label", kText}, {"rank", kInteger}, {"word", kText}, {"mean_weight", kNumber}, {"count", kInteger}});
  for (const auto& row : keywords) table.row(row.label, row.rank, row.word, row.mean_weight, row.count);
  return table;
}

ResultTable word_shift_table(const std::vector<WeightShift>& shifts) {
  ResultTable table({{"word", kText}, {"label_a", kText}, {"label_b", kText}, {"count_a", kInteger},
                     {"count_b", kInteger}, {"median_a", kNumber}, {"median_b", kNumber}, {"U", kNumber},
                     {"effect", kNumber}, {"p_value", kNumber}, {"p_adjusted", kNumber}});
  for (const auto& row : shifts)
    table.row(row.word, row.label_a, row.label_b, row.count_a, row.count_b, row.median_a, row.median_b, row.u,
              row.effect, row.p_value, row.p_adjusted);
  return table;
}

}  // namespace aw
