// analysis/variant_comparison.cpp — see variant_comparison.h.
#include "analysis/variant_comparison.h"

#include "analysis/csv_field.h"
#include "models/errors.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <sstream>

namespace aw {

void check_variants(const std::vector<VariantScores>& variants) {
  if (variants.size() < 2) throw Error("compare needs at least two variants (--variant NAME=DIR,DIR twice or more)");
  std::set<std::string> names;
  for (const auto& variant : variants) {
    if (!names.insert(variant.name).second) throw Error("variant '" + variant.name + "' is given twice");
    if (variant.models.size() < 2)
      throw Error("variant '" + variant.name + "' has " + std::to_string(variant.models.size()) +
                  (variant.models.size() == 1 ? " model" : " models") +
                  "; Welch's t-test needs at least 2 runs of each variant");
  }
}

VariantComparison compare_variants(const std::string& metric, const std::vector<VariantScores>& variants) {
  check_variants(variants);
  for (const auto& variant : variants)
    if (variant.values.size() != variant.models.size())
      throw Error("variant '" + variant.name + "': " + std::to_string(variant.values.size()) + " values for " +
                  std::to_string(variant.models.size()) + " models");
  VariantComparison comparison;
  comparison.metric = metric;
  for (const auto& variant : variants) {
    const auto n = static_cast<double>(variant.values.size());
    const double mean = std::accumulate(variant.values.begin(), variant.values.end(), 0.0) / n;
    double squares = 0.0;
    for (const double value : variant.values) squares += (value - mean) * (value - mean);
    comparison.variants.push_back({variant.name, static_cast<int64_t>(n), mean, std::sqrt(squares / (n - 1))});
  }
  for (size_t a = 0; a < variants.size(); ++a)
    for (size_t b = a + 1; b < variants.size(); ++b)
      comparison.contrasts.push_back({variants[a].name, variants[b].name,
                                      comparison.variants[a].mean - comparison.variants[b].mean,
                                      welch_t_test(variants[a].values, variants[b].values)});
  return comparison;
}

std::string variant_summary_csv(const VariantComparison& comparison) {
  std::ostringstream csv;
  csv << "# metric=" << comparison.metric << "\nvariant,runs,mean,sd\n";
  for (const auto& row : comparison.variants)
    csv << csv_field(row.name) << "," << row.runs << "," << csv_number(row.mean) << "," << csv_number(row.sd) << "\n";
  return csv.str();
}

std::string variant_tests_csv(const VariantComparison& comparison) {
  std::ostringstream csv;
  csv << "# metric=" << comparison.metric << ", test=welch\nfirst,second,difference,t,df,p_value\n";
  for (const auto& row : comparison.contrasts)
    csv << csv_field(row.first) << "," << csv_field(row.second) << "," << csv_number(row.difference) << ","
        << csv_number(row.welch.statistic) << "," << csv_number(row.welch.degrees_of_freedom) << ","
        << csv_number(row.welch.p_value) << "\n";
  return csv.str();
}

nlohmann::json variant_comparison_json(const VariantComparison& comparison) {
  auto variants = nlohmann::json::array();
  for (const auto& row : comparison.variants)
    variants.push_back({{"variant", row.name}, {"runs", row.runs}, {"mean", row.mean}, {"sd", row.sd}});
  auto tests = nlohmann::json::array();
  for (const auto& row : comparison.contrasts)
    tests.push_back({{"first", row.first}, {"second", row.second}, {"difference", row.difference},
                     {"t", row.welch.statistic}, {"df", row.welch.degrees_of_freedom}, {"p_value", row.welch.p_value}});
  return {{"metric", comparison.metric}, {"variants", variants}, {"welch", tests}};
}

}  // namespace aw
