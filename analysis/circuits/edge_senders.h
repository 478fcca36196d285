// analysis/circuits/edge_senders.h — what each sender of the edge graph (edge_graph.h) writes into the
// residual stream during a forward: the input its embedding, a head its slice of the output projection
// applied to its z, an MLP its output. With a norm on the attention's output (Gemma 2 and 3) the heads'
// shares are that norm linearised at the layer's whole output, so they add up to what the layer writes;
// the output projection's bias, the same in every run, belongs to no sender.
#pragma once

#include "analysis/circuits/edge_graph.h"
#include "models/nn/transformer.h"

#include <torch/types.h>

#include <cstdint>
#include <memory>

namespace aw {

// Each head's write [H, B, n, d] from the layer's z [B, H, n, dh] as the Z hook holds it.
torch::Tensor head_residual_writes(TransformerImpl& model, int64_t layer, const torch::Tensor& z);

// Readers added to `options` that fill *writes [U, B, n, d] (made at the first layer's input) with every
// sender's write as the forward goes, detached. Add them before readers that use the writes.
void read_sender_writes(TransformerImpl& model, const EdgeGraph& graph, ForwardOptions& options,
                        const std::shared_ptr<torch::Tensor>& writes);

}  // namespace aw
