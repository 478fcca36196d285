// analysis/heads/gate_evaluation.h — the metric of a model under many head-gate settings at once, the
// engine behind ablation and pruning curves. Settings that agree on every layer below their first
// layer share that part of the forward: its output is computed once per data batch and reused, and the
// settings go through the upper layers together as one batch (gates with a batch dimension). Where
// the model splits rows at its gates (AttentionModel::splits_rows_at_gates), the settings of one
// forward also share layer `first_layer`'s attention, which a gate cannot change.
#pragma once

#include "analysis/data/evaluation_data.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {

struct GateMetric {
  double metric = 0.0;  // perplexity, accuracy or BLEU
  double loss = 0.0;    // mean cross-entropy (NaN for BLEU, which has none)
};

// gates: [S, L, H_max], every setting equal to gates[0] on layers below first_layer. Returns one
// metric per setting, or an empty vector when `progress` cancels (called once per data batch), and
// with `examples` set, every example's part in those metrics (on the CPU).
// At most `max_batch_rows` rows (settings × windows) go through a forward together; 0 = the
// default for the model's device (default_batch_rows).
std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, int64_t first_layer,
                                               const ProgressCallback& progress = {}, int64_t max_batch_rows = 0,
                                               ExampleScores* examples = nullptr);

// The same with a first layer per setting (0..L; L = the settings differ in no layer): setting s
// equals gates[0] on the layers below first_layers[s]. One pass over the data serves every group
// of settings: the shared forward climbs from one group's first layer to the next.
std::vector<GateMetric> evaluate_gate_settings(AttentionModel& model, const EvaluationData& data,
                                               const torch::Tensor& gates, const std::vector<int64_t>& first_layers,
                                               const ProgressCallback& progress = {}, int64_t max_batch_rows = 0,
                                               ExampleScores* examples = nullptr);

// Rows per forward for sequences of `length` tokens: about 2048 tokens on the CPU, where the
// matmuls already run at full speed and larger batches only made every activation bigger (a
// 64-row sweep of the bench model touched 2.5× as many fresh pages as a 16-row one, at ~10 µs a
// page on these VMs); 64 rows on a GPU, to keep it busy.
int64_t default_batch_rows(const torch::Device& device, int64_t length);

}  // namespace aw
