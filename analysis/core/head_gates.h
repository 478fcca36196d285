// analysis/core/head_gates.h — head gates as the model's forward takes them: [L, H_max] tensors, 1 =
// head on and 0 = off, made from a request's --heads-off (core/gate_settings.h) or from the window's
// on/off flags.
#pragma once

#include "analysis/core/descriptor.h"
#include "analysis/core/gate_settings.h"

#include <torch/types.h>

#include <vector>

namespace aw {

// The heads the request's --heads-off switches off, per model of the request (blocks and heads,
// 0-based), checked against the models (SettingError naming heads-off otherwise). Empty per model when
// the descriptor takes no gates.
std::vector<std::vector<HeadRef>> request_heads_off(const AnalysisRequest& request);
// Gates [L, H_max] on model `index`'s device; undefined when every head of that model is on.
torch::Tensor request_gates(const AnalysisRequest& request, size_t index);

// Gates [L, H_max]: ones for existing heads (padding columns of pruned layers stay 1, unused).
torch::Tensor all_heads_on(const ModelConfig& config);
// Gates [L, H_max] with `heads` off (columns past a layer's heads stay 1).
torch::Tensor gates_from_heads(const ModelConfig& config, const std::vector<HeadRef>& heads);
// Gates [L, H_max] from per-layer on/off flags (flags[l][h]); columns past a layer's heads stay 1.
// The heads panel's [layer][head] values from a [L, H_max] tensor of per-head values (each layer's
// first heads_per_layer[l] entries; the rest are no head).
std::vector<std::vector<double>> layer_head_values(const torch::Tensor& values, const std::vector<int64_t>& heads_per_layer);
torch::Tensor gates_from_flags(const ModelConfig& config, const std::vector<std::vector<bool>>& flags);

}  // namespace aw
