// analysis/head_importance.h — Michel et al. §4.1: head importance I_h = mean over data batches of
// |∂L/∂ξ_h|, the gradient of the batch's mean loss (token cross-entropy, or example cross-entropy
// for a classifier) with respect to head h's gate ξ_h at the base gates (one forward/backward per
// batch). By default each layer's vector is divided by its ℓ2 norm, as in the paper.
#pragma once

#include "analysis/attention_blocks.h"
#include "analysis/gate_evaluation.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aw {

struct ImportanceResult {
  std::string model;
  bool normalized = true;
  std::vector<std::vector<double>> scores;  // [layer][head] (0-based), heads_per_layer entries per layer
  BlockNames names;                         // how CSV rows name a block (kind column for translation models)
  std::vector<int64_t> blocks;              // the blocks the CSV lists (--attention; empty = all)
  int64_t batches = 0;
  bool cancelled = false;
};

ImportanceResult head_importance(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 bool normalize = true, const torch::Tensor& base_gates = {},
                                 const ProgressCallback& progress = {});

// CSV `layer,head,importance` (1-based; translation models `kind,layer,head,importance`), after a
// "# model=…, normalized=…" line.
std::string importance_csv(const ImportanceResult& result);
nlohmann::json importance_json(const ImportanceResult& result);

}  // namespace aw
