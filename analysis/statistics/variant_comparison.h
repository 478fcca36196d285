// analysis/statistics/variant_comparison.h — several trained models of each variant (one per seed) on the same
// data: each variant's mean ± sample standard deviation of the metric, and Welch's t-test between
// every pair of variants, or between one reference variant and each other (Bird-Eye marks results by
// significance over several runs), with Holm's adjustment over the tests made. Plain numbers in and
// out: `attention-cli compare` evaluates the models and calls this.
#pragma once

#include "analysis/statistics/significance.h"

#include "table/result_table.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct VariantScores {
  std::string name;
  std::vector<std::string> models;  // one per run, e.g. runs/bet/seed-1
  std::vector<double> values;       // each model's metric, in `models` order
};

struct VariantSummary {
  std::string name;
  int64_t runs = 0;
  double mean = 0.0;
  double sd = 0.0;  // sample standard deviation (n − 1)
};

struct VariantContrast {
  std::string first, second;  // in the order the variants were given
  double difference = 0.0;    // mean(first) − mean(second)
  TestResult welch;
  double p_holm = 1.0;  // Holm-adjusted over every contrast of the comparison
  // 95 % Welch interval of `difference` (welch_interval), not adjusted for the number of contrasts.
  double ci_low = 0.0, ci_high = 0.0;
};

struct VariantComparison {
  std::string metric;  // perplexity, accuracy, …
  std::vector<VariantSummary> variants;
  std::string reference;  // "" when every pair is tested
  // Without a reference: every pair, first before second in the given order. With one: the reference
  // first, against each other variant in the given order.
  std::vector<VariantContrast> contrasts;
};

// Throws aw::Error for fewer than two variants, a repeated name, a variant with fewer than two
// models ("variant 'bet' has 1 model; Welch's t-test needs at least 2 runs of each variant"), or a
// reference that names none of them: what check_variants checks before any model is evaluated.
void check_variants(const std::vector<VariantScores>& variants, const std::string& reference = "");
// check_variants, then the summaries and tests of the variants' values (one per model). Testing each
// variant against a reference alone makes k − 1 tests instead of k(k − 1)/2, so Holm's adjustment
// costs less power when only "better than the baseline?" is asked.
VariantComparison compare_variants(const std::string& metric, const std::vector<VariantScores>& variants,
                                   const std::string& reference = "");

// Tables `variant,runs,mean,sd` and `first,second,difference,ci_low,ci_high,t,df,p_value,p_holm`, and
// both as the JSON record `compare --json` prints (variants, welch, metric, reference).
ResultTable variant_summary_table(const VariantComparison& comparison);
ResultTable variant_tests_table(const VariantComparison& comparison);
nlohmann::json variant_comparison_json(const VariantComparison& comparison);

}  // namespace aw
