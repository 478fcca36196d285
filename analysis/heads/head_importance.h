// analysis/heads/head_importance.h — Michel et al. §4.1: head importance I_h = mean over data batches of
// |∂L/∂ξ_h|, the gradient of the batch's mean loss (token cross-entropy, or example cross-entropy
// for a classifier) with respect to head h's gate ξ_h at the base gates (one forward/backward per
// batch). By default each layer's vector is divided by its ℓ2 norm, as in the paper.
//
// Per example (the paper's formula, I_h = E_x |∂L(x)/∂ξ_h|): every example of a batch gets its own row
// of gates (gates with a batch dimension), the loss is the sum of the examples' own mean losses, so
// the gradient's row x is exactly ∂L(x)/∂ξ for example x — one backward still serves the batch.
// Per batch, |·| is taken of the batch's mean gradient, where examples pulling a gate in opposite
// directions cancel: with batches of equally many tokens the per-example value is never smaller, and
// the two agree at one example a batch.
#pragma once

#include "analysis/core/attention_blocks.h"
#include "analysis/heads/gate_evaluation.h"

#include "table/result_table.h"

#include <string>
#include <vector>

namespace aw {

struct ImportanceResult {
  std::string model;
  bool normalized = true;
  std::vector<std::vector<double>> scores;  // [layer][head] (0-based), heads_per_block entries per layer
  BlockNames names;                         // how CSV rows name a block (kind column for translation models)
  std::vector<int64_t> blocks;              // the blocks the CSV lists (--attention; empty = all)
  int64_t batches = 0;
  bool per_example = false;
  int64_t examples = 0;                     // per_example: the examples averaged over
  bool cancelled = false;
};

ImportanceResult head_importance(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 bool normalize = true, const torch::Tensor& base_gates = {},
                                 const ProgressCallback& progress = {}, bool per_example = false);

// CSV `layer,head,importance` (1-based; translation models `kind,layer,head,importance`), after a
// "# model=…, normalized=…" line (", per_example=true" added for the per-example form).
ResultTable importance_table(const ImportanceResult& result);

}  // namespace aw
