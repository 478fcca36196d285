// analysis/statistics/delta_significance.h — whether a gate setting's metric differs from the baseline's by more
// than the choice of examples explains: the paired bootstrap over examples (significance.h) of every
// setting's delta in the metric's own unit (perplexity, accuracy or BLEU points), each resample
// recomputing the corpus metric from the resampled examples (loss over tokens, correct over examples,
// BLEU from summed n-gram counts), p-values corrected across the settings compared.
#pragma once

#include "analysis/data/evaluation_data.h"
#include "analysis/statistics/significance.h"

#include "table/result_table.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aw {

enum class Correction { Holm, BenjaminiHochberg };

// "holm" or "bh", as the --correction setting spells them.
std::string correction_name(Correction correction);
// Throws aw::Error for another name.
Correction correction_from_name(const std::string& name);

struct SignificanceOptions {
  int64_t resamples = 0;  // bootstrap resamples; 0 = no significance (the CLI's default is 1000)
  uint64_t seed = 1;
  Correction correction = Correction::Holm;
  // false: intervals only, nothing is tested (stats): no correction, no p-values, and the metadata and
  // the refusal line say so.
  bool tests = true;
  double alpha = 0.05;    // significant: adjusted p ≤ alpha
  // Fewer independent units than this: no interval, p-value or star (significance_for,
  // analysis/core/shared_settings.h). One unit resampled gives the same value every time: an interval
  // of zero width and the smallest p there is, for any effect.
  int64_t min_units = 20;
  std::string unit;        // what was resampled, plural ("windows"), and how many: in the table's metadata
  int64_t units = 0;
  // EvaluationData::blocks: examples with one number are resampled together as one unit (windows of
  // one paragraph); empty when every example is its own unit.
  std::vector<int64_t> blocks;
  std::string refused;     // why no bootstrap ran although one was asked for; "" otherwise
  bool enabled() const { return resamples > 0; }
  // What too few units withhold, as the refusal line opens.
  std::string withheld() const { return tests ? "no intervals or p-values" : "no intervals"; }
};

struct DeltaSignificance {
  double low = 0;         // 95 % percentile interval of the delta
  double high = 0;
  double p_value = 1;     // two-sided, of "delta = 0"
  double p_adjusted = 1;  // corrected across the settings compared together
  bool significant = false;

  // This interval widened to hold `estimate`, the delta a table prints beside it: that delta comes
  // from the evaluation's own means, the interval from float64 sums of the same examples, and the
  // two can differ in the sixth digit. An interval beside its own estimate would read as a finding.
  DeltaSignificance holding(double estimate) const;
};

// Each setting's corpus metric from summed example scores: sums [.., S] (BLEU [.., S, 10]) and
// counts [..] → [.., S] float64.
torch::Tensor metrics_from_sums(const std::string& metric_name, const torch::Tensor& sums, const torch::Tensor& counts);

// How finely two corpus metrics computed from float32 example sums can be told apart, relative to
// their size: another CPU's kernels move the sums' last bits. Differences within it are ties.
constexpr double kMetricResolution = 1e-6;

// The bootstrap of metric(compared[i]) − metric(baseline) for every i, columns of `scores`; one
// resampling of examples (of options.blocks, when given) serves all of them. A resampled difference
// within kMetricResolution of the metrics from "as far as 0" is a tie (summarize_bootstrap). Requires
// options.enabled(); throws aw::Error when `scores` holds no examples.
std::vector<DeltaSignificance> delta_significance(const ExampleScores& scores, int64_t baseline,
                                                  const std::vector<int64_t>& compared,
                                                  const SignificanceOptions& options);

// The bootstrap of metric(pairs[i].first) − metric(pairs[i].second) for every pair of columns of
// `scores` (two pruning orders at the same step), from one resampling, corrected across the pairs.
// Requires options.enabled(); throws aw::Error when `scores` holds no examples.
std::vector<DeltaSignificance> paired_settings_significance(const ExampleScores& scores,
                                                            const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                                            const SignificanceOptions& options);

// Intervals and p-values of settings compared together (summarize_bootstrap's), the p-values
// corrected across them by options.correction and starred at options.alpha.
std::vector<DeltaSignificance> corrected_significance(const std::vector<PairedDifference>& summaries,
                                                      const SignificanceOptions& options);

// How result tables say it: "bootstrap=1000, seed=1, correction=holm, unit=windows, units=240,
// min_units=20" in the metadata (a refused bootstrap: "significance=<why>"; nothing when none was
// asked for); the columns after a delta, delta_low, delta_high, p_value, p_adjusted and significant (1/0), and one row's cells.
void add_significance_meta(ResultTable& table, const SignificanceOptions& options);
void add_significance_columns(ResultTable& table);
std::vector<Cell> significance_cells(const DeltaSignificance& significance);

}  // namespace aw
