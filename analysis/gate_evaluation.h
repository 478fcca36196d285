// analysis/gate_evaluation.h — the metric of a model under many head-gate settings at once, the
// engine behind ablation and pruning curves. Settings that agree on every layer below `first_layer`
// share that part of the forward: its output is computed once per data batch and reused, and the
// settings go through the upper layers together as one batch (gates with a batch dimension). Where
// the model splits rows at its gates (AttentionModel::splits_rows_at_gates), the settings of one
// forward also share layer `first_layer`'s attention, which a gate cannot change.
#pragma once

#include "models/text/corpus.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// What an analysis evaluates on: language-model windows (labels empty → perplexity) or classifier
// batches (one label tensor per input → accuracy).
struct EvaluationData {
  std::vector<ModelInput> inputs;
  std::vector<torch::Tensor> labels;
  bool classification = false;
  bool is_classification() const { return classification; }
  std::string metric_name() const { return is_classification() ? "accuracy" : "perplexity"; }
};
EvaluationData language_model_data(std::vector<ModelInput> windows);
EvaluationData classification_data(const ClassifierBatches& batches);

// Throws aw::Error when there is no data, or when its kind does not fit the model (a classifier
// needs labelled examples, a language model plain text).
void check_data_fits(const ModelConfig& config, const EvaluationData& data);

struct GateMetric {
  double metric = 0.0;  // perplexity or accuracy
  double loss = 0.0;    // mean cross-entropy
};

// gates: [S, L, H_max], every setting equal to gates[0] on layers below first_layer. Returns one
// metric per setting, or an empty vector when `progress` cancels (called once per data batch).
// At most `max_batch_rows` rows (settings × windows) go through a forward together; 0 = the
// default for the model's device (default_batch_rows).
std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, int64_t first_layer,
                                               const ProgressCallback& progress = {}, int64_t max_batch_rows = 0);

// Rows per forward for sequences of `length` tokens: about 2048 tokens on the CPU, where the
// matmuls already run at full speed and larger batches only made every activation bigger (a
// 64-row sweep of the bench model touched 2.5× as many fresh pages as a 16-row one, at ~10 µs a
// page on these VMs); 64 rows on a GPU, to keep it busy.
int64_t default_batch_rows(const torch::Device& device, int64_t length);

// Whether a metric change is damage: perplexity going up, accuracy going down.
double damage(const std::string& metric_name, double baseline, double changed);

}  // namespace aw
