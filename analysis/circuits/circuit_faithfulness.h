// analysis/circuits/circuit_faithfulness.h — how much of a behaviour a circuit of edges (edge_graph.h)
// carries: the clean run in which every receiver reads, along each edge outside the circuit, what its
// sender wrote in the corrupted run instead of what it writes now (Hanna et al. 2024). A receiver's input
// is its layer's residual stream less Σ over those edges of (a_u now − a_u corrupted); senders' writes
// now are read as the run goes (edge_senders.h). Every edge in the circuit gives the clean run, none the
// corrupted one. Faithfulness = Σ (m_circuit − m_corrupted) / Σ (m_clean − m_corrupted) over pairs.
#pragma once

#include "analysis/circuits/edge_graph.h"
#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

struct CircuitRuns {
  torch::Tensor patched;  // [C, P] float64: m with every edge outside circuit c corrupted
  bool cancelled = false;
};

// `circuits`: [U, V] bool each, true on the circuit's edges. `batch` pairs per forward; `gates` [L, H_max]
// every run is made under (undefined: all on).
CircuitRuns circuit_runs(AttentionModel& model, const std::vector<PatchPair>& pairs, const EdgeGraph& graph,
                         const std::vector<torch::Tensor>& circuits, int64_t batch, const torch::Tensor& gates = {},
                         const ProgressCallback& progress = {});

}  // namespace aw
