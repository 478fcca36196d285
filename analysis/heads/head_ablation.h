// analysis/heads/head_ablation.h — Michel et al. Tables 1–3: the metric with heads gated off.
//   single       each head gated to 0 alone (every other head as in the base gates)
//   all-but-one  per layer, each head kept alone: the layer's other heads gated to 0
//   chosen       per layer, the head chosen on another (held-out) data set kept alone (Tables 5–6)
// delta = metric − baseline, the baseline being the model under the base gates. Each layer's
// settings run as one batched forward over the upper layers, reusing the layers below it.
#pragma once

#include "analysis/core/attention_blocks.h"
#include "analysis/core/head_gates.h"
#include "analysis/statistics/delta_significance.h"
#include "analysis/heads/gate_evaluation.h"

#include "table/result_table.h"

#include <string>
#include <vector>

namespace aw {

enum class AblationMode { Single, AllButOne };

struct HeadEffect {
  int64_t layer = 0;  // 1-based attention block (the layer, for one-kind models)
  int64_t head = 0;   // 1-based
  double metric = 0.0;
  double delta = 0.0;
  DeltaSignificance significance;  // with a bootstrap: the delta's interval, p-values and verdict
  double compared_metric = 0.0;    // with a compared data set (AblationResult::compared_text): the
  double compared_delta = 0.0;     // same head's metric and delta there
};

// Michel Figure 2: the same heads' effects on a second data set, and how they correlate.
struct AblationComparison {
  std::string text;         // the data file of the result's own deltas
  std::string compared_text;  // the second data file
  double baseline = 0.0;    // its unablated metric
  double pearson = 0.0;     // of the heads' deltas on the two data sets (NaN: a constant side)
  double spearman = 0.0;
};

struct AblationResult {
  std::string model;
  std::string metric_name;
  AblationMode mode = AblationMode::Single;
  double baseline = 0.0;
  std::vector<HeadEffect> heads;           // every (layer, head), layer-major
  std::vector<HeadEffect> best_per_layer;  // all-but-one: the head that does best alone, per layer
  BlockNames names;                        // how rows name their block (kind column for translation models)
  SignificanceOptions significance;        // resamples 0: no bootstrap was run
  AblationComparison comparison;           // compared_text empty: no second data set
  std::string chosen_on;                   // keep_chosen_heads: the data file the heads were chosen on
  bool cancelled = false;
};

// base_gates: [L, H_max] (undefined = every head on). Progress counts data batches over all passes.
// `blocks`: the attention blocks whose heads are ablated (empty = all). With `significance` enabled,
// every head's delta gets its paired-bootstrap interval and p-values, corrected across all the heads.
AblationResult ablate_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                            AblationMode mode, const torch::Tensor& base_gates = {},
                            const ProgressCallback& progress = {}, const std::vector<int64_t>& blocks = {},
                            const SignificanceOptions& significance = {});

// Michel Tables 5–6: each layer reduced to the head `chosen` for it elsewhere (the best_per_layer of an
// all-but-one ablation on held-out data, `chosen_on`), scored on `data`. Only those settings run, and with
// `significance` the correction spans them alone: one test per layer, none spent on heads not chosen.
// The result reads as an all-but-one ablation whose heads and best_per_layer are the chosen heads.
AblationResult keep_chosen_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 const std::vector<HeadEffect>& chosen, const std::string& chosen_on,
                                 const torch::Tensor& base_gates = {}, const ProgressCallback& progress = {},
                                 const SignificanceOptions& significance = {});

// Single: `layer,head,metric,delta`; all-but-one: `layer,best_head,metric,delta`, or with
// every_head the `layer,head,metric,delta` rows of all heads. A "# model=…, metric=…, baseline=…"
// line comes first. Translation models' rows start with their kind: `kind,layer,head,…`. With a
// bootstrap, `delta_low,delta_high,p_value,p_adjusted,significant` follow delta (the first line adds
// "bootstrap=B, seed=S, correction=holm"). With a comparison, `metric_compared,delta_compared` come
// last and the first line adds "text=A, compare_text=B, compare_baseline=…, pearson_r=…, spearman_rho=…".
// Chosen heads add "chosen_on=FILE" to the first line.
ResultTable ablation_table(const AblationResult& result, bool every_head = false);

// Adds `other` (the same single-head ablation of the same model on a second data set, `other_text`)
// to `result` (on `text`):
// each head's compared metric and delta, and the Pearson and Spearman correlations of the deltas.
// Throws aw::Error unless both are single-head ablations of the same heads.
void add_comparison(AblationResult& result, const AblationResult& other, const std::string& text,
                    const std::string& other_text);

}  // namespace aw
