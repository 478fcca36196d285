// analysis/statistics/variant_comparison.cpp — see variant_comparison.h.
#include "analysis/statistics/variant_comparison.h"

#include "models/errors.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>

namespace aw {

void check_variants(const std::vector<VariantScores>& variants, const std::string& reference) {
  if (variants.size() < 2) throw Error("compare needs at least two variants (--variant NAME=DIR,DIR twice or more)");
  std::set<std::string> names;
  std::string listed;
  for (const auto& variant : variants) {
    if (!names.insert(variant.name).second) throw Error("variant '" + variant.name + "' is given twice");
    if (variant.models.size() < 2)
      throw Error("variant '" + variant.name + "' has " + std::to_string(variant.models.size()) +
                  (variant.models.size() == 1 ? " model" : " models") +
                  "; Welch's t-test needs at least 2 runs of each variant");
    listed += (listed.empty() ? "" : ", ") + variant.name;
  }
  if (!reference.empty() && names.count(reference) == 0)
    throw Error("the reference '" + reference + "' is none of the variants (" + listed + ")");
}

VariantComparison compare_variants(const std::string& metric, const std::vector<VariantScores>& variants,
                                   const std::string& reference) {
  check_variants(variants, reference);
  for (const auto& variant : variants)
    if (variant.values.size() != variant.models.size())
      throw Error("variant '" + variant.name + "': " + std::to_string(variant.values.size()) + " values for " +
                  std::to_string(variant.models.size()) + " models");
  VariantComparison comparison;
  comparison.metric = metric;
  comparison.reference = reference;
  for (const auto& variant : variants) {
    const auto n = static_cast<double>(variant.values.size());
    const double mean = std::accumulate(variant.values.begin(), variant.values.end(), 0.0) / n;
    double squares = 0.0;
    for (const double value : variant.values) squares += (value - mean) * (value - mean);
    comparison.variants.push_back({variant.name, static_cast<int64_t>(n), mean, std::sqrt(squares / (n - 1))});
  }
  const auto contrast = [&](size_t a, size_t b) {
    VariantContrast row;
    row.first = variants[a].name;
    row.second = variants[b].name;
    row.difference = comparison.variants[a].mean - comparison.variants[b].mean;
    row.welch = welch_t_test(variants[a].values, variants[b].values);
    std::tie(row.ci_low, row.ci_high) = welch_interval(variants[a].values, variants[b].values, 0.95);
    comparison.contrasts.push_back(row);
  };
  if (reference.empty()) {
    for (size_t a = 0; a < variants.size(); ++a)
      for (size_t b = a + 1; b < variants.size(); ++b) contrast(a, b);
  } else {
    size_t base = 0;
    while (variants[base].name != reference) ++base;
    for (size_t other = 0; other < variants.size(); ++other)
      if (other != base) contrast(base, other);
  }
  std::vector<double> raw;
  for (const auto& row : comparison.contrasts) raw.push_back(row.welch.p_value);
  const auto adjusted = holm_adjusted(raw);
  for (size_t i = 0; i < adjusted.size(); ++i) comparison.contrasts[i].p_holm = adjusted[i];
  return comparison;
}

ResultTable variant_summary_table(const VariantComparison& comparison) {
  ResultTable table;
  table.meta("metric", comparison.metric);
  table.add_column("variant", ColumnType::Text)
      .add_column("runs", ColumnType::Integer)
      .add_column("mean", ColumnType::Number)
      .add_column("sd", ColumnType::Number);
  for (const auto& row : comparison.variants) table.row(row.name, row.runs, row.mean, row.sd);
  return table;
}

ResultTable variant_tests_table(const VariantComparison& comparison) {
  ResultTable table;
  table.meta("metric", comparison.metric).meta("test", "welch").meta("correction", "holm");
  if (!comparison.reference.empty()) table.meta("reference", comparison.reference);
  table.add_column("first", ColumnType::Text).add_column("second", ColumnType::Text);
  for (const char* name : {"difference", "ci_low", "ci_high", "t", "df", "p_value", "p_holm"})
    table.add_column(name, ColumnType::Number);
  for (const auto& row : comparison.contrasts)
    table.row(row.first, row.second, row.difference, row.ci_low, row.ci_high, row.welch.statistic,
              row.welch.degrees_of_freedom, row.welch.p_value, row.p_holm);
  return table;
}

nlohmann::json variant_comparison_json(const VariantComparison& comparison) {
  auto variants = nlohmann::json::array();
  for (const auto& row : comparison.variants)
    variants.push_back({{"variant", row.name}, {"runs", row.runs}, {"mean", row.mean}, {"sd", row.sd}});
  auto tests = nlohmann::json::array();
  for (const auto& row : comparison.contrasts)
    tests.push_back({{"first", row.first}, {"second", row.second}, {"difference", row.difference},
                     {"ci_low", row.ci_low}, {"ci_high", row.ci_high},
                     {"t", row.welch.statistic}, {"df", row.welch.degrees_of_freedom}, {"p_value", row.welch.p_value},
                     {"p_holm", row.p_holm}});
  nlohmann::json result = {{"metric", comparison.metric}, {"variants", variants}, {"welch", tests}};
  if (!comparison.reference.empty()) result["reference"] = comparison.reference;
  return result;
}

}  // namespace aw
