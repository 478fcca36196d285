// analysis/circuits/circuit_selection.h — circuits of a given size from edge scores (edge_attribution.h).
// "top": the edges of largest |score|, connected or not. "greedy" (Hanna et al. 2024's greedy search):
// grown from the logits, each step adding the edge of largest |score| among those into a node already in
// the circuit (the logits, or a head or MLP with an edge in it), so every edge reaches the logits.
#pragma once

#include "analysis/circuits/edge_graph.h"
#include "models/nn/model_config.h"

#include <torch/types.h>

#include <cstdint>
#include <string>

namespace aw {

enum class CircuitSelection { Top, Greedy };
// "top" or "greedy"; throws aw::Error naming the choices otherwise.
CircuitSelection circuit_selection_named(const std::string& name);

// `size` edges of `graph` chosen by |scores| [U, V] (NaN where no edge) as `selection` says: [U, V] bool.
// Ties in edge order (sender-major). Throws aw::Error when the graph has fewer than `size` edges.
torch::Tensor circuit_edges(const ModelConfig& config, const EdgeGraph& graph, const torch::Tensor& scores, int64_t size,
                            CircuitSelection selection);

}  // namespace aw
