// analysis/circuits/head_input_gradients.cpp — see head_input_gradients.h. Mirrors the order of
// MultiHeadAttentionImpl::project (models/nn/attention.cpp): projection, per-head q/k norm, rotation;
// values clamped where the config clips them.
#include "analysis/circuits/head_input_gradients.h"

#include "models/errors.h"
#include "models/nn/modules.h"

#include <torch/torch.h>

namespace aw {
namespace {

// state copied once per head as a leaf [heads, B, n, d], the layer's norm applied.
struct Copies {
  torch::Tensor leaf, read;
};
Copies per_head_copies(TransformerBlockImpl& block, const torch::Tensor& state, int64_t heads) {
  Copies copies;
  copies.leaf = state.detach().unsqueeze(0).expand({heads, -1, -1, -1}).clone().requires_grad_(true);
  copies.read = block.ln_1 ? block.ln_1(copies.leaf) : copies.leaf;
  return copies;
}

// Each head's slice of `dense` on its own copy: [heads, B, n, d] → [B, heads, n, dh].
torch::Tensor projected(const Dense& dense, const torch::Tensor& read, int64_t dh) {
  const auto heads = read.size(0);
  const auto weight = dense->weight.view({heads, dh, read.size(-1)}).to(read.scalar_type());
  auto out = torch::einsum("hbnd,hed->bhne", {read, weight});
  if (dense->bias.defined()) out = out + dense->bias.view({1, heads, 1, dh}).to(read.scalar_type());
  return out;
}

}  // namespace

HeadInputGradients head_input_gradients(TransformerImpl& model, int64_t layer, const torch::Tensor& state,
                                        const torch::Tensor& grad_q, const torch::Tensor& grad_k,
                                        const torch::Tensor& grad_v) {
  const auto& config = model.config();
  if (config.decoder.qk_norm == QkNorm::Whole)
    throw Error("edge attribution needs heads that read the residual stream apart; " + config.family_name() +
                "'s query and key norms span every head at once");
  if (config.bird_eye) throw Error("edge attribution is not defined for bet_sf's bird-eye reweighting");
  if (config.norm == NormPlacement::Post)
    throw Error("edge attribution needs a norm before each sublayer; " + config.family_name() + " normalises after the add");
  auto& block = *model.layers[layer]->as<TransformerBlockImpl>();
  auto& attention = *block.attn;
  const auto dh = config.head_width(layer);
  const auto n = state.size(1);
  torch::Tensor cos, sin;
  if (config.positions == PositionKind::Rotary) {
    const bool sliding = config.decoder.sliding_layer(layer);
    const auto& rotary = sliding && config.decoder.sliding_rotary.dims > 0 ? config.decoder.sliding_rotary : config.rotary;
    std::tie(cos, sin) = rotary_tables(rotary, n, model.tok_emb->weight.options());
  }
  const double clip = config.decoder.qkv_clip;
  torch::AutoGradMode gradients_on(true);
  auto carried = [&](const Dense& dense, Norm norm, bool rotated, bool clipped, const torch::Tensor& grad,
                     int64_t heads) {
    auto copies = per_head_copies(block, state, heads);
    auto out = projected(dense, copies.read, dh);
    if (norm) out = norm(out);
    if (rotated && cos.defined()) out = apply_rotary(out, cos, sin);
    if (clipped && clip > 0) out = out.clamp(-clip, clip);
    return torch::autograd::grad({(out * grad.to(out.scalar_type())).sum()}, {copies.leaf})[0];
  };
  const auto kv = config.kv_heads_in(layer);
  HeadInputGradients gradients;
  gradients.query = carried(attention.q, attention.q_norm, true, false, grad_q, config.heads_per_block[layer]);
  gradients.key = carried(attention.k, attention.k_norm, true, false, grad_k, kv);
  gradients.value = carried(attention.v, Norm{nullptr}, false, true, grad_v, kv);
  return gradients;
}

}  // namespace aw
