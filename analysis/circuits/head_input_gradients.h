// analysis/circuits/head_input_gradients.h — the gradient of an output with respect to the residual
// stream each attention head reads as its own query, key or value input: what edge attribution
// patching (Syed et al. 2023) needs per receiver. A layer's q, k and v are recomputed from the state
// entering it, copied once per head, through the layer's own norm, each head's slice of the
// projection (one projection's work for all heads), its q/k norm and the rotation, and the model's
// gradients at the q, k and v hooks are carried back through that: [heads, B, n, d] for each input.
#pragma once

#include "models/nn/transformer.h"

#include <torch/types.h>

#include <cstdint>
#include <functional>

namespace aw {

// Each head's slice of `dense` (with its bias) on its own copy of the input: [heads, B, n, d] →
// [B, heads, n, dh].
torch::Tensor projected(const Dense& dense, const torch::Tensor& read, int64_t dh);

// The gradient of ⟨grad, read(copies)⟩ with respect to `heads` copies of `state` [B, n, d], one per head:
// [heads, B, n, d]. `read` maps the copies to one input of every head [B, heads, n, dh] (as the Q, K or V
// hook holds it), so each head's gradient reaches only its own copy.
torch::Tensor per_head_gradients(const std::function<torch::Tensor(const torch::Tensor&)>& read, const torch::Tensor& state,
                                 const torch::Tensor& grad, int64_t heads);
// The gradient of ⟨g, norm(x)⟩ with respect to x: what a gradient after a norm is in the residual stream.
torch::Tensor norm_vjp(const std::function<torch::Tensor(const torch::Tensor&)>& norm, const torch::Tensor& x,
                       const torch::Tensor& g);

// Throws aw::Error (one line) for a model whose heads do not read the residual stream apart: a q/k norm
// over every head at once (OLMo 2), BET(SF)'s reweighting (which reads keys and values again), or a norm
// after the add (post-norm).
void check_heads_read_apart(const ModelConfig& config);

// Each head's own query, key and value from its own residual state, as the layer's Q, K and V hooks hold
// them [B, H|Hkv, n, dh]: `states_q` [H, B, n, d] (one state per query head), `states_k` and `states_v`
// [Hkv, B, n, d]; positions from 0. What a receiver head reads when its inputs differ from its layer's.
struct HeadInputs {
  torch::Tensor q, k, v;
};
HeadInputs head_inputs(TransformerImpl& model, int64_t layer, const torch::Tensor& states_q,
                       const torch::Tensor& states_k, const torch::Tensor& states_v);

struct HeadInputGradients {
  torch::Tensor query;         // [H, B, n, d]: through each query head's query alone
  torch::Tensor key, value;    // [Hkv, B, n, d]: through each key/value head's key (value) alone
};

// `state` [B, n, d]: resid_pre of `layer`; `grad_q` [B, H, n, dh], `grad_k` and `grad_v` [B, Hkv, n, dh]:
// the output's gradients at the layer's q, k and v hooks. Throws as check_heads_read_apart does.
HeadInputGradients head_input_gradients(TransformerImpl& model, int64_t layer, const torch::Tensor& state,
                                        const torch::Tensor& grad_q, const torch::Tensor& grad_k,
                                        const torch::Tensor& grad_v);

}  // namespace aw
