// analysis/attention_stats/diagonal_sweep.h — Bird-Eye Table 2 rows and Figure 3 at inference time: the metric
// (perplexity or accuracy) while every layer's dot-product diagonal is multiplied by a factor, or
// masked (DiagFreeMask). A factor replaces the diagonal mode the model was trained with.
#pragma once

#include "analysis/data/evaluation_data.h"
#include "analysis/statistics/delta_significance.h"
#include "models/training/evaluation.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include "table/result_table.h"

#include <functional>
#include <string>
#include <vector>

namespace aw {

struct DiagonalSweepPoint {
  std::string label;                  // "0.2", "1", "mask"
  DiagonalIntervention intervention;
  double metric = 0.0;
  double loss = 0.0;
  double delta = 0.0;                 // metric − the model's own (no intervention)
  DeltaSignificance significance;     // with a bootstrap: the delta's interval, p-values and verdict
};

struct DiagonalSweepResult {
  std::string model;
  std::string metric_name;            // "perplexity", "accuracy" or "bleu"
  double baseline = 0.0;              // the metric with the diagonal as the model was trained
  std::vector<DiagonalSweepPoint> points;
  SignificanceOptions significance;   // resamples 0: no bootstrap was run
  bool cancelled = false;
};

// "0,0.2,mask" → interventions; throws aw::Error for an entry that is neither a number ≥ 0 nor "mask".
std::vector<DiagonalSweepPoint> parse_diagonal_factors(const std::string& list);
// 0, 0.2, 0.4, …, 2.0.
std::string default_diagonal_factors();

// Evaluates the model once as trained (the baseline: `base` options) and once per point; each
// point's delta is its metric minus the baseline's. `evaluate` runs the whole dataset with the given
// options (evaluate_perplexity or evaluate_accuracy bound to the data); `progress` sees (batches done
// over all evaluations, total) when `batches_per_point` is given. With `significance` enabled,
// `evaluate` must keep its examples (data_evaluator's keep_examples): every delta gets its paired
// bootstrap interval and p-values, corrected across the points.
DiagonalSweepResult diagonal_sweep(const std::string& model_name, std::vector<DiagonalSweepPoint> points,
                                   const Evaluator& evaluate, int64_t batches_per_point,
                                   const ForwardOptions& base = {}, const ProgressCallback& progress = {},
                                   const SignificanceOptions& significance = {});

// Table `factor,metric,delta` with metadata model, metric and baseline; with a bootstrap, the
// significance columns (delta_significance.h) follow delta; each point's mean loss in JSON only.
ResultTable diagonal_sweep_table(const DiagonalSweepResult& result);

}  // namespace aw
