// models/nn/forward_hooks.h — one forward's interventions as hooks (hooks.h): the head gates as the
// first writer at z, the caller's own hooks, and the captured attention as the last reader at pattern.
// Every family that runs the shared attention builds its layers' hooks here, so a new intervention is a
// hook, not a field threaded through each family.
#pragma once

#include "models/nn/hooks.h"
#include "models/nn/model.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

// The hooks the layers [first_layer, end_layer) of one forward run: a writer at z that scales each
// head's context by `layer_gates[layer]` ([k·B|1, H] in the model's dtype; undefined or missing = that
// layer ungated), repeating the B contexts k times (setting-major) where the gates have k·B rows;
// then `caller`'s hooks; then, at each layer `sink` captures, a reader at pattern that hands it the
// probabilities tile by tile (after every writer, as the layer goes on with them).
Hooks forward_hooks(std::vector<torch::Tensor> layer_gates, const Hooks& caller, AttentionSink& sink,
                    int64_t first_layer, int64_t end_layer);

}  // namespace aw
