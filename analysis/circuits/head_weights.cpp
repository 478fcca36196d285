// analysis/circuits/head_weights.cpp — see head_weights.h.
#include "analysis/circuits/head_weights.h"

#include "analysis/core/descriptor.h"
#include "models/errors.h"
#include "models/nn/transformer.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

constexpr double kFloat64Weights = 100e6;  // above this many weights the matrices are kept in float32

// A norm's effective weight [width] (Gemma's RMSNorm multiplies by 1 + w), or undefined for none.
torch::Tensor norm_scale(const Norm& norm, NormKind kind, torch::ScalarType dtype) {
  if (!norm) return {};
  const auto weight = norm->weight.detach().to(torch::kCPU, dtype);
  return kind == NormKind::RmsNormPlusOne ? weight + 1 : weight;
}

// Rows of `weight` [H'·dh, d] as [H', dh, d].
torch::Tensor head_rows(const torch::Tensor& weight, int64_t dh, torch::ScalarType dtype) {
  return weight.detach().to(torch::kCPU, dtype).reshape({-1, dh, weight.size(1)});
}

// Subtracts each column's mean over the d rows of x [..., d, k]: what a LayerNorm reading the sum
// removes first (TransformerLens's centre_writing_weights).
torch::Tensor centred(const torch::Tensor& x) { return x - x.mean(-2, /*keepdim=*/true); }

LayerHeadWeights layer_weights(TransformerBlockImpl& block, const ModelConfig& config, int64_t layer,
                               torch::ScalarType dtype) {
  auto& attention = *block.attn;
  const int64_t dh = config.head_width(layer);
  const auto kind = config.decoder.norm;
  LayerHeadWeights weights;
  weights.query = head_rows(attention.q->weight, dh, dtype);  // [H, dh, d]
  weights.key = head_rows(attention.k->weight, dh, dtype);    // [Hkv, dh, d]
  weights.value = head_rows(attention.v->weight, dh, dtype);
  // The q/k norms (Qwen3, Gemma 3 per head; OLMo 2 over the projection) scale each channel after the
  // projection: their weights fold into the rows, their normalisation is left out as the input norm's is.
  if (attention.q_norm) {
    const auto q_scale = norm_scale(attention.q_norm, kind, dtype);
    const auto k_scale = norm_scale(attention.k_norm, kind, dtype);
    weights.query = weights.query * q_scale.reshape({-1, dh, 1});
    weights.key = weights.key * k_scale.reshape({-1, dh, 1});
  }
  // The reading norm: before the attention where the model has one (a post-norm model's ln_1 sits
  // after the add and rescales the whole stream, not a path).
  if (config.norm == NormPlacement::Pre) {
    const auto reading = norm_scale(block.ln_1, kind, dtype);
    if (reading.defined()) {
      weights.query = weights.query * reading;
      weights.key = weights.key * reading;
      weights.value = weights.value * reading;
    }
  }
  // Grouped-query: each query head reads its key/value head's, kept once per key/value head too.
  weights.kv_key = weights.key;
  weights.kv_value = weights.value;
  weights.kv_of = attention.kv_index.defined() ? attention.kv_index.to(torch::kCPU, torch::kLong)
                                               : torch::arange(weights.query.size(0), torch::kLong);
  if (attention.kv_index.defined()) {
    weights.key = weights.key.index_select(0, weights.kv_of);
    weights.value = weights.value.index_select(0, weights.kv_of);
  }
  const auto o = attention.o->weight.detach().to(torch::kCPU, dtype);  // [d, H·dh]
  auto output = o.reshape({o.size(0), -1, dh}).permute({1, 0, 2});     // [H, d, dh]
  const auto post = norm_scale(block.ln_attn_out, kind, dtype);  // Gemma 2/3, OLMo 2: a norm on the write
  if (post.defined()) output = output * post.reshape({1, -1, 1});
  if (kind == NormKind::LayerNorm && config.norm == NormPlacement::Pre) output = centred(output);
  weights.output = output.contiguous();
  return weights;
}

}  // namespace

torch::ScalarType head_weights_dtype(const LoadedModel& loaded) {
  return static_cast<double>(loaded.parameter_count) > kFloat64Weights ? torch::kFloat32 : torch::kFloat64;
}

HeadWeights head_weights(const LoadedModel& loaded, const std::string& analysis, int64_t min_layers,
                         torch::ScalarType dtype) {
  auto* model = dynamic_cast<TransformerImpl*>(loaded.model.get());
  const auto& config = loaded.config;
  if (!model)
    throw Error(loaded.name + ": " + analysis + " reads the heads of one stack of transformer blocks; this checkpoint is " +
                describe_model_kind(config));
  if (config.n_blocks < min_layers)
    throw Error(loaded.name + ": " + analysis + " needs at least " + std::to_string(min_layers) + " layers; " +
                loaded.name + " has " + std::to_string(config.n_blocks));
  c10::InferenceMode inference;
  HeadWeights weights;
  for (int64_t layer = 0; layer < config.n_blocks; ++layer)
    weights.layers.push_back(layer_weights(*model->layers[layer]->as<TransformerBlockImpl>(), config, layer, dtype));
  const bool pre = config.norm == NormPlacement::Pre;
  weights.centred = pre && config.decoder.norm == NormKind::LayerNorm;
  auto embedding = model->tok_emb->weight.detach().to(torch::kCPU, dtype).t();  // [d, V]
  weights.embedding = (weights.centred ? centred(embedding) : embedding).contiguous();
  if (config.is_language_model()) {
    auto unembedding = (model->lm_head ? model->lm_head->weight : model->tok_emb->weight).detach().to(torch::kCPU, dtype);
    const auto final_scale = norm_scale(model->ln_f, config.decoder.norm, dtype);
    weights.unembedding = final_scale.defined() ? unembedding * final_scale : unembedding;
  }
  if (config.positions != PositionKind::Rotary && pre) {
    auto table = config.positions == PositionKind::Learned
                     ? model->pos_emb->weight.detach().to(torch::kCPU, dtype)
                     : sinusoid_table(config.max_positions, config.d_model).to(dtype);  // [P, d]
    if (weights.centred) table = table - table.mean(-1, true);
    // The norm's division too: a position alone in the residual is small beside a token, and its QK
    // pattern without the division would read as uniform.
    weights.positions = table * torch::rsqrt(table.pow(2).mean(-1, true) + config.layer_norm_eps);
  }
  weights.score_scale = 1.0 / std::sqrt(config.decoder.query_scale > 0 ? config.decoder.query_scale
                                                                       : static_cast<double>(config.d_head));
  std::string folded = pre ? "reading norm weights folded into W_Q, W_K, W_V" : "post-norm model: no norm folded";
  if (config.decoder.post_norms) folded += "; the post-attention norm's weight into W_O";
  if (config.decoder.qk_norm != QkNorm::None) folded += "; the q/k norms' weights into W_Q, W_K";
  if (weights.centred) folded += "; W_O and W_E centred (LayerNorm)";
  weights.folded = folded;
  return weights;
}

}  // namespace aw
