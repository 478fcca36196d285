// analysis/capture/expert_routing.h — which experts a mixture-of-experts model sends each token to, layer
// by layer (`attend --experts FILE.csv`, the window's colouring by expert): read at each sparse layer's
// router (HookPoint::Router) during one forward, and chosen by the model's own rule (choose_experts).
#pragma once

#include "models/nn/model.h"
#include "models/text/tokenizer.h"
#include "table/result_table.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct LayerRouting {
  int64_t layer = 0;      // 0-based
  torch::Tensor experts;  // [n, k] int64 (CPU): each token's experts, best first
  torch::Tensor weights;  // [n, k] float32 (CPU): the weights their outputs are summed with
};

// Every sparse layer's choice for `encoding`, in layer order (inference mode, nothing else captured).
// Throws aw::Error naming the model when it has no experts.
// `forward` may carry head gates (the window's switched-off heads change what the routers read).
std::vector<LayerRouting> route_tokens(AttentionModel& model, const std::string& model_name, const Encoding& encoding,
                                       const ForwardOptions& forward = {});

// One row per (layer, token): `layer,position,token,expert_1…expert_k,weight_1…weight_k` (1-based
// layers and experts' own 0-based numbers, as the checkpoint numbers them), with the model and k in the
// metadata.
ResultTable routing_table(const std::vector<LayerRouting>& routing, const Encoding& encoding,
                          const std::string& model_name);

}  // namespace aw
