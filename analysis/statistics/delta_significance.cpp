// analysis/statistics/delta_significance.cpp — see delta_significance.h.
#include "analysis/statistics/delta_significance.h"

#include "analysis/statistics/significance.h"
#include "models/errors.h"
#include "models/text/bleu.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace aw {

std::string correction_name(Correction correction) { return correction == Correction::Holm ? "holm" : "bh"; }

Correction correction_from_name(const std::string& name) {
  if (name == "holm") return Correction::Holm;
  if (name == "bh") return Correction::BenjaminiHochberg;
  throw Error("correction must be holm or bh, got '" + name + "'");
}

torch::Tensor metrics_from_sums(const std::string& metric_name, const torch::Tensor& sums, const torch::Tensor& counts) {
  if (metric_name == "bleu") {
    // BLEU is no ratio of sums: each cell's corpus score comes from its summed n-gram counts.
    const auto flat = sums.to(torch::kFloat64).reshape({-1, kBleuStatistics}).contiguous();
    auto scores = torch::empty({flat.size(0)}, torch::kFloat64);
    const auto cells = flat.accessor<double, 2>();
    auto* out = scores.data_ptr<double>();
    for (int64_t i = 0; i < flat.size(0); ++i) {
      BleuStatistics statistics{};
      for (int k = 0; k < kBleuStatistics; ++k) statistics[k] = std::llround(cells[i][k]);
      out[i] = bleu_from_statistics(statistics).score;
    }
    return scores.view(sums.sizes().slice(0, sums.dim() - 1));
  }
  const auto ratio = sums.to(torch::kFloat64) / counts.to(torch::kFloat64).unsqueeze(-1);
  return metric_name == "perplexity" ? ratio.exp() : ratio;
}

std::vector<DeltaSignificance> delta_significance(const ExampleScores& scores, int64_t baseline,
                                                  const std::vector<int64_t>& compared,
                                                  const SignificanceOptions& options) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const auto setting : compared) pairs.emplace_back(setting, baseline);
  return paired_settings_significance(scores, pairs, options);
}

std::vector<DeltaSignificance> paired_settings_significance(const ExampleScores& scores,
                                                            const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                                            const SignificanceOptions& options) {
  TORCH_CHECK(options.enabled(), "delta_significance needs resamples > 0");
  if (!scores.sums.defined() || scores.sums.size(0) == 0) throw Error("significance: no examples to resample");
  const bool bleu = scores.metric_name == "bleu";
  // The resampling runs on the host; the sums may come from a GPU evaluation (diag-sweep keeps them there).
  // Examples resampled together are one unit: their sums (and counts) add up, as the corpus metric
  // adds them anyway.
  const auto sums = sums_per_unit(scores.sums, options.blocks);
  const auto counts = scores.counts.defined() ? sums_per_unit(scores.counts, options.blocks) : scores.counts;
  const auto examples = sums.size(0);
  const auto settings = sums.size(1);
  // One resampling for every column: the settings' sums, then (ratios) the examples' counts.
  const auto values = bleu ? sums.reshape({examples, -1}) : torch::cat({sums, counts.unsqueeze(1)}, 1);
  const auto resampled = resampled_sums(values, options.resamples, options.seed);  // (B, K)
  torch::Tensor resampled_metrics, observed_metrics;                                // (B, S), (S)
  if (bleu) {
    resampled_metrics = metrics_from_sums("bleu", resampled.view({-1, settings, kBleuStatistics}), {});
    observed_metrics = metrics_from_sums("bleu", sums.sum(0), {});
  } else {
    resampled_metrics =
        metrics_from_sums(scores.metric_name, resampled.narrow(1, 0, settings), resampled.select(1, settings));
    observed_metrics = metrics_from_sums(scores.metric_name, sums.sum(0, true), counts.sum(0, true))[0];
  }
  std::vector<int64_t> firsts, seconds;
  for (const auto& [first, second] : pairs) firsts.push_back(first), seconds.push_back(second);
  const auto first = torch::tensor(firsts, torch::kLong), second = torch::tensor(seconds, torch::kLong);
  const auto deltas = resampled_metrics.index_select(1, first) - resampled_metrics.index_select(1, second);
  const auto first_metric = observed_metrics.index_select(0, first), second_metric = observed_metrics.index_select(0, second);
  const auto observed = first_metric - second_metric;
  // The per-example sums are float32 sums whose last bits move with the CPU's kernels (about 1e-7 of
  // their size, 1e-6 after a layer stack): differences closer than 1e-6 of the metrics are ties.
  const auto resolution = kMetricResolution * torch::maximum(first_metric.abs(), second_metric.abs());
  return corrected_significance(summarize_bootstrap(observed, deltas, resolution), options);
}

std::vector<DeltaSignificance> corrected_significance(const std::vector<PairedDifference>& summaries,
                                                      const SignificanceOptions& options) {
  std::vector<double> p_values;
  for (const auto& summary : summaries) p_values.push_back(summary.p_value);
  const auto adjusted = options.correction == Correction::Holm ? holm_adjusted(p_values)
                                                               : benjamini_hochberg_adjusted(p_values);
  std::vector<DeltaSignificance> results;
  for (size_t i = 0; i < summaries.size(); ++i)
    results.push_back({summaries[i].low, summaries[i].high, summaries[i].p_value, adjusted[i],
                       adjusted[i] <= options.alpha});
  return results;
}

DeltaSignificance DeltaSignificance::holding(double estimate) const {
  auto held = *this;
  held.low = std::min(low, estimate);
  held.high = std::max(high, estimate);
  return held;
}

void add_significance_meta(ResultTable& table, const SignificanceOptions& options) {
  if (!options.refused.empty()) table.meta("significance", options.refused);
  if (!options.enabled()) return;
  table.meta("bootstrap", options.resamples).meta("seed", static_cast<int64_t>(options.seed));
  if (options.tests) table.meta("correction", correction_name(options.correction));
  if (!options.unit.empty())
    table.meta("unit", options.unit).meta("units", options.units).meta("min_units", options.min_units);
}

void add_significance_columns(ResultTable& table) {
  table.add_column("delta_low", ColumnType::Number)
      .add_column("delta_high", ColumnType::Number)
      .add_column("p_value", ColumnType::Number)
      .add_column("p_adjusted", ColumnType::Number)
      .add_column("significant", ColumnType::Integer);
}

std::vector<Cell> significance_cells(const DeltaSignificance& significance) {
  return {significance.low, significance.high, significance.p_value, significance.p_adjusted,
          int64_t{significance.significant ? 1 : 0}};
}

}  // namespace aw
