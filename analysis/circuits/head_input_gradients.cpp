// analysis/circuits/head_input_gradients.cpp — see head_input_gradients.h. Mirrors the order of
// MultiHeadAttentionImpl::project (models/nn/attention.cpp): projection, per-head q/k norm, rotation;
// values clamped where the config clips them.
#include "analysis/circuits/head_input_gradients.h"

#include "models/errors.h"
#include "models/nn/modules.h"

#include <torch/torch.h>

namespace aw {

torch::Tensor projected(const Dense& dense, const torch::Tensor& read, int64_t dh) {
  const auto heads = read.size(0);
  const auto weight = dense->weight.view({heads, dh, read.size(-1)}).to(read.scalar_type());
  auto out = torch::einsum("hbnd,hed->bhne", {read, weight});
  if (dense->bias.defined()) out = out + dense->bias.view({1, heads, 1, dh}).to(read.scalar_type());
  return out;
}

namespace {

// One kind of input (q, k or v) of every head of `layer`, each from its own state [heads, B, n, d]:
// through the layer's norm, the head's slice of the projection, its q/k norm, rotation and clip.
class HeadReading {
 public:
  HeadReading(TransformerImpl& model, int64_t layer, int64_t n)
      : config_(model.config()), block_(*model.layers[layer]->as<TransformerBlockImpl>()), dh_(config_.head_width(layer)) {
    if (config_.positions == PositionKind::Rotary) {
      const bool sliding = config_.decoder.sliding_layer(layer);
      const auto& rotary = sliding && config_.decoder.sliding_rotary.dims > 0 ? config_.decoder.sliding_rotary : config_.rotary;
      std::tie(cos_, sin_) = rotary_tables(rotary, n, model.tok_emb->weight.options());
    }
  }
  torch::Tensor query(const torch::Tensor& states) const { return read(block_.attn->q, block_.attn->q_norm, true, false, states); }
  torch::Tensor key(const torch::Tensor& states) const { return read(block_.attn->k, block_.attn->k_norm, true, false, states); }
  torch::Tensor value(const torch::Tensor& states) const { return read(block_.attn->v, Norm{nullptr}, false, true, states); }

 private:
  torch::Tensor read(const Dense& dense, Norm norm, bool rotated, bool clipped, const torch::Tensor& states) const {
    auto out = projected(dense, block_.ln_1 ? block_.ln_1(states) : states, dh_);
    if (norm) out = norm(out);
    if (rotated && cos_.defined()) out = apply_rotary(out, cos_, sin_);
    const double clip = config_.decoder.qkv_clip;
    if (clipped && clip > 0) out = out.clamp(-clip, clip);
    return out;
  }
  const ModelConfig& config_;
  TransformerBlockImpl& block_;
  int64_t dh_;
  torch::Tensor cos_, sin_;
};

}  // namespace

torch::Tensor per_head_gradients(const std::function<torch::Tensor(const torch::Tensor&)>& read, const torch::Tensor& state,
                                 const torch::Tensor& grad, int64_t heads) {
  torch::AutoGradMode gradients_on(true);
  const auto copies = state.detach().unsqueeze(0).expand({heads, -1, -1, -1}).clone().requires_grad_(true);
  const auto out = read(copies);
  return torch::autograd::grad({(out * grad.to(out.scalar_type())).sum()}, {copies})[0];
}

torch::Tensor norm_vjp(const std::function<torch::Tensor(const torch::Tensor&)>& norm, const torch::Tensor& x,
                       const torch::Tensor& g) {
  torch::AutoGradMode gradients_on(true);
  const auto leaf = x.detach().requires_grad_(true);
  return torch::autograd::grad({(norm(leaf) * g).sum()}, {leaf})[0];
}

void check_heads_read_apart(const ModelConfig& config) {
  if (config.decoder.qk_norm == QkNorm::Whole)
    throw Error("edge attribution needs heads that read the residual stream apart; " + config.family_name() +
                "'s query and key norms span every head at once");
  if (config.bird_eye) throw Error("edge attribution is not defined for bet_sf's bird-eye reweighting");
  if (config.norm == NormPlacement::Post)
    throw Error("edge attribution needs a norm before each sublayer; " + config.family_name() + " normalises after the add");
}

HeadInputs head_inputs(TransformerImpl& model, int64_t layer, const torch::Tensor& states_q,
                       const torch::Tensor& states_k, const torch::Tensor& states_v) {
  check_heads_read_apart(model.config());
  const HeadReading reading(model, layer, states_q.size(2));
  return {reading.query(states_q), reading.key(states_k), reading.value(states_v)};
}

HeadInputGradients head_input_gradients(TransformerImpl& model, int64_t layer, const torch::Tensor& state,
                                        const torch::Tensor& grad_q, const torch::Tensor& grad_k,
                                        const torch::Tensor& grad_v) {
  const auto& config = model.config();
  check_heads_read_apart(config);
  const HeadReading reading(model, layer, state.size(1));
  auto carried = [&](torch::Tensor (HeadReading::*read)(const torch::Tensor&) const, const torch::Tensor& grad, int64_t heads) {
    return per_head_gradients([&](const torch::Tensor& copies) { return (reading.*read)(copies); }, state, grad, heads);
  };
  const auto kv = config.kv_heads_in(layer);
  HeadInputGradients gradients;
  gradients.query = carried(&HeadReading::query, grad_q, config.heads_per_block[layer]);
  gradients.key = carried(&HeadReading::key, grad_k, kv);
  gradients.value = carried(&HeadReading::value, grad_v, kv);
  return gradients;
}

}  // namespace aw
