// analysis/circuits/translation_attribution.h — token attribution on a translation model: which source
// and which target tokens the decoder's prediction at target position t draws on, read through the
// three kinds of attention (encoder self, decoder self, cross). Every score vector is [n + m] float64:
// the n source tokens, then the m tokens the decoder reads. Definitions: docs/circuits.md
// "Token attribution on translation models".
//
// `patterns` are the model's blocks in its one numbering (model_config.h: the encoder's layers, then
// each decoder layer's self- and cross-attention): [H, n, n] encoder, [H, m, m] decoder, [H, m, n] cross.
#pragma once

#include "models/nn/model_config.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

// The last cross-attention block's row t over the source beside the last decoder self-attention
// block's row t over the target, each the mean over heads.
torch::Tensor translation_attention(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                    int64_t position);
// Abnar & Zuidema's rollout on the joint graph: encoder rows E = Â_Le ⋯ Â_1 over the source; decoder
// rows start at [0 | I]; a self-attention block maps R ← Â R, a cross-attention block R ← ½ R +
// ½ Ā [E | 0] (Ā the heads' mean, rows divided by their sums); row t of the last R.
torch::Tensor translation_rollout(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                  int64_t position);
// The maximum flow from decoder position t after the last block to each token, through the same
// graph: an edge per residual-mixed weight of each block, a cross block's own rows at capacity ½ and
// its edges into the encoder's last level at ½ Ā.
torch::Tensor translation_flow(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                               int64_t position);
// Chefer, Gur & Wolf 2021 (bi-modal and encoder–decoder rules): R^ss = I, R^tt = I, R^ts = 0; an
// encoder block R^ss += Ā R^ss; a decoder self block R^tt += Ā R^tt, R^ts += Ā R^ts; a cross block
// R^ts += (R̄^tt)ᵀ Ā R̄^ss (Eq. 10; R̄ = I + the rows of R − I divided by their sums). Ā = mean_h
// max(∇A ⊙ A, 0). Row t of R^ts beside row t of R^tt.
torch::Tensor translation_gradient_rollout(const ModelConfig& config, const std::vector<torch::Tensor>& patterns,
                                           const std::vector<torch::Tensor>& gradients, int64_t position);
// Eq. 8–9's normalisation: I + (R − I) with each row divided by its sum (a row summing to 0 stays 0).
torch::Tensor residual_normalised(const torch::Tensor& relevance);

}  // namespace aw
