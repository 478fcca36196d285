// analysis/circuits/translation_edge_reading.h — what the senders of a translation model's edge graph
// (translation_edges.h) write into their streams during a forward, and how its receiver heads read
// their own copy of a stream: the modules' own norms and projections (a pre-norm transformer_mt has no
// rotary and no q/k norm).
#pragma once

#include "analysis/circuits/edge_graph.h"
#include "models/nn/translation.h"

#include <torch/types.h>

#include <memory>

namespace aw {

// Each stream's senders' writes, as the forward makes them: [U_enc, B, n, d] (the source, the encoder's
// heads and MLPs) and [U_dec, B, m, d] (from graph.decoder_senders on), detached.
struct StreamWrites {
  std::shared_ptr<torch::Tensor> encoder = std::make_shared<torch::Tensor>();
  std::shared_ptr<torch::Tensor> decoder = std::make_shared<torch::Tensor>();
};
// Readers added to `options` that fill `writes`. Add them before readers that use the writes.
void read_translation_writes(TranslationTransformerImpl& model, const EdgeGraph& graph, ForwardOptions& options,
                             const StreamWrites& writes);

// Block `block`'s q, k or v (`kind`) of every head, each from its own state [H, B, len, d] (the stream
// the receiver reads: translation_edges.h) through the norm before it: [B, H, len, dh], as the Q, K and
// V hooks hold them.
torch::Tensor read_heads(TranslationTransformerImpl& model, int64_t block, ReceiverKind kind, const torch::Tensor& states);

// The norm an MLP receiver's input goes through (the encoder's ln_2, the decoder's ln_3) at block
// `block` (an encoder or a cross-attention block).
torch::Tensor mlp_norm(TranslationTransformerImpl& model, int64_t block, const torch::Tensor& state);

}  // namespace aw
