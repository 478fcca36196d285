// analysis/circuits/translation_edges.h — edge attribution patching (edge_attribution.h) and circuit
// faithfulness (circuit_faithfulness.h) on a pre-norm translation model, by attention kind. Its graph has
// two residual streams. The encoder's: written by the source's embedding, the encoder's heads and MLPs;
// read by the encoder's q, k, v and MLPs, and by every cross-attention's k and v (its last state,
// through the encoder's final norm). The decoder's: written by the target's embedding, the decoder's
// self-attention and cross-attention heads and MLPs; read by the decoder's q, k, v, cross-attention's q,
// the decoder's MLPs and the logits. An edge joins a sender to a receiver that reads its stream after it
// wrote. Definitions: docs/circuits.md "Edge attribution on translation models".
#pragma once

#include "analysis/circuits/circuit_faithfulness.h"
#include "analysis/circuits/edge_attribution.h"

#include <string>

namespace aw {

// Throws aw::Error (one line) for a post-norm model (Marian, BART) or BET(SF)'s reweighting.
EdgeGraph translation_edge_graph(const ModelConfig& config);
// An MLP's layer: "enc1" after encoder block 0, "dec2" after the second cross-attention block.
std::string mlp_layer_name(const ModelConfig& config, int64_t block);

EdgeAttributionResult translation_edge_attribution(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                                   const EdgeAttributionSettings& settings,
                                                   const ProgressCallback& progress);
CircuitRuns translation_circuit_runs(SequenceToSequenceModel& model, const std::vector<PatchPair>& pairs,
                                     const EdgeGraph& graph, const std::vector<torch::Tensor>& circuits, int64_t batch,
                                     const torch::Tensor& gates, const ProgressCallback& progress);

}  // namespace aw
