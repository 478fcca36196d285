// analysis/heads/head_pruning.h — Michel et al. Figure 3: remove heads cumulatively, step% of all heads at
// a time, in ascending order of a score, and evaluate after each step.
//   importance  the order of I_h (analysis/heads/head_importance.h, normalised per layer)
//   oracle      the order of the damage of gating each head off alone (single-head ablation)
// Heads pruned at p % = round(p / 100 × total heads), switched off through their gates (ξ_h = 0).
#pragma once

#include "analysis/core/gate_settings.h"
#include "analysis/heads/checkpoint_series.h"
#include "analysis/statistics/delta_significance.h"
#include "analysis/heads/gate_evaluation.h"


#include <string>
#include <vector>

namespace aw {

struct PruningPoint {
  std::string order;  // "importance" or "oracle"
  double percent = 0.0;
  int64_t heads_pruned = 0;
  double metric = 0.0;
  double delta = 0.0;              // metric − the curve's first point's (nothing pruned)
  DeltaSignificance significance;  // with a bootstrap: the delta's interval, p-values and verdict
};

// Two orders at one step where each prunes some heads but not all: the first order's metric minus
// the second's, on the same examples (Michel Figure 3: which order prunes better).
struct OrderDifference {
  double percent = 0.0;
  int64_t heads_pruned = 0;
  double first_metric = 0.0;
  double second_metric = 0.0;
  double delta = 0.0;              // first_metric − second_metric
  DeltaSignificance significance;  // with a bootstrap: paired over the examples, corrected across the steps
};

struct PruningResult {
  std::string model;
  std::string metric_name;
  std::string attention;  // translation models: the attention pruned (enc, dec, cross or all); "" otherwise
  std::string ranked_on;  // where the order came from when not the curve's data: a text or a CSV file
  bool per_example = false;  // the importance order ranked by E_x |∂L(x)/∂ξ_h| (Michel's Eq. 2)
  std::vector<PruningPoint> points;
  std::vector<std::string> compared_orders;  // with two orders: {first, second} of `between`
  std::vector<OrderDifference> between;
  SignificanceOptions significance;  // resamples 0: no bootstrap was run
  bool cancelled = false;
};

// Heads sorted by ascending score (ties: lower layer, then lower head first).
std::vector<HeadRef> order_heads(const std::vector<std::vector<double>>& scores);

// Evaluates the model with the first round(p/100·total) heads of `order` gated off, for
// p = 0, step, 2·step, … up to 100. All of one order's steps run as one batched pass. With
// `significance` enabled, each point's delta from the first gets its paired-bootstrap interval and
// p-values, corrected across the curve's points that prune at least one head; `examples` (when given,
// with the bootstrap) receives every example's part in each point's metric, one column a point.
std::vector<PruningPoint> pruning_curve(AttentionModel& model, const EvaluationData& data, const std::string& order_name,
                                        const std::vector<HeadRef>& order, double step_percent,
                                        const ProgressCallback& progress = {},
                                        const SignificanceOptions& significance = {}, ExampleScores* examples = nullptr);

// Table `order,percent_pruned,heads_pruned,metric,delta` with metadata model and metric (translation
// models: attention=cross, the percentages being of that attention's heads; ranked_on=FILE when the
// heads were ranked on other data or read from a file); with a bootstrap, the significance columns
// (delta_significance.h) follow delta.
ResultTable pruning_table(const PruningResult& result);

// Michel §6: how far one order's curve goes before the metric is more than `max_drop_percent` % worse
// than with every head on (perplexity higher, accuracy or BLEU lower): the last point before the first
// one beyond that tolerance.
struct PrunableShare {
  std::string order;
  double base_metric = 0.0;  // the curve's first point (nothing pruned)
  double percent = 0.0;      // percent_pruned of the last point within the tolerance
  int64_t heads = 0;         // heads_pruned there
  double metric = 0.0;       // the metric there
};

// One share per order of `points` (pruning_curve's points, each order starting at 0 %).
std::vector<PrunableShare> prunable_shares(const std::vector<PruningPoint>& points, const std::string& metric_name,
                                           double max_drop_percent);

// Pruning curves over a run's epoch checkpoints (checkpoint_series.h): per epoch, each order's curve
// (heads ranked on that epoch's model) and its prunable share.
struct PruningSeriesResult {
  std::string model;        // the run folder's name
  std::string series_dir;
  std::string metric_name;
  std::string ranked_on;    // as in PruningResult
  double max_drop_percent = 10.0;
  std::vector<SeriesCheckpoint> checkpoints;
  std::vector<PruningResult> curves;               // per checkpoint
  std::vector<std::vector<PrunableShare>> shares;  // per checkpoint, per order
  bool cancelled = false;
};

// Table `epoch,step,order,base_metric,prunable_percent,prunable_heads,metric_at_prunable` with
// metadata model, metric, max_drop and series=DIR; pruning_series_curves_table: every epoch's curve
// (pruning_table's columns with epoch and step in front).
ResultTable pruning_series_table(const PruningSeriesResult& result);
// The series' metadata alone: "model=…, metric=…, max_drop=10, series=DIR[, ranked_on=FILE]".
ResultTable pruning_series_metadata(const PruningSeriesResult& result);
ResultTable pruning_series_curves_table(const PruningSeriesResult& result);

}  // namespace aw
