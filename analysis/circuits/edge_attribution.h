// analysis/circuits/edge_attribution.h — edge attribution patching (EAP, Syed et al. 2023) and its
// integrated-gradients form (EAP-IG, Hanna et al. 2024) on clean/corrupted pairs: every edge u → v of the
// graph (edge_graph.h) scored as (a_u(corrupted) − a_u(clean)) · ∂m/∂(v's input), summed over
// positions and averaged over pairs, where a_u is what u writes into the residual stream and the gradient
// reaches v's input alone (a head's own q, k or v: head_input_gradients.h). EAP takes the gradient on the
// clean run; EAP-IG averages it over k runs whose input embeddings go from corrupted to clean (α = j/k,
// j = 1…k). A score estimates m with that one edge corrupted minus m clean. m is the metric of
// pair_batches.h. Definitions: docs/circuits.md "Edge attribution".
#pragma once

#include "analysis/circuits/edge_graph.h"
#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

struct EdgeAttributionSettings {
  int64_t steps = 1;     // 1: EAP; k > 1: EAP-IG with k interpolation steps
  int64_t batch = 8;     // pairs per forward (of one prompt length)
  torch::Tensor gates;   // [L, H_max] every run is made under (undefined: all on)
};

struct EdgeAttributionResult {
  EdgeGraph graph;
  torch::Tensor scores;            // [U, V] float64, the mean over pairs; NaN where there is no edge
  torch::Tensor clean, corrupted;  // [P] float64: m of each pair's clean and corrupted run
  bool cancelled = false;
};

// Throws aw::Error (one line) for a model without the edge graph (edge_graph()) or steps < 1.
EdgeAttributionResult edge_attribution(AttentionModel& model, const std::vector<PatchPair>& pairs,
                                       const EdgeAttributionSettings& settings, const ProgressCallback& progress = {});

}  // namespace aw
