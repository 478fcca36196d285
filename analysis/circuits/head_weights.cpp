// analysis/circuits/head_weights.cpp — see head_weights.h.
#include "analysis/circuits/head_weights.h"

#include "analysis/core/descriptor.h"
#include "models/errors.h"
#include "models/nn/transformer.h"
#include "models/nn/translation.h"

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

// A torch::nn::LayerNorm's weight (a translation model's decoder norms), or undefined for none.
torch::Tensor layer_norm_scale(const torch::nn::LayerNorm& norm, torch::ScalarType dtype) {
  if (!norm) return {};
  return norm->weight.detach().to(torch::kCPU, dtype);
}

// What folds into one attention's heads: the reading norms' weights (queries; keys and values), the
// post-attention norm's weight, and whether W_O is centred.
struct Folding {
  torch::Tensor query_norm, key_norm, post_norm;
  bool centre = false;
};

LayerHeadWeights attention_weights(MultiHeadAttentionImpl& attention, int64_t dh, NormKind kind, const Folding& folding,
                                   torch::ScalarType dtype) {
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
  if (folding.query_norm.defined()) weights.query = weights.query * folding.query_norm;
  if (folding.key_norm.defined()) {
    weights.key = weights.key * folding.key_norm;
    weights.value = weights.value * folding.key_norm;
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
  if (folding.post_norm.defined()) output = output * folding.post_norm.reshape({1, -1, 1});
  if (folding.centre) output = centred(output);
  weights.output = output.contiguous();
  return weights;
}

LayerHeadWeights layer_weights(TransformerBlockImpl& block, const ModelConfig& config, int64_t layer,
                               torch::ScalarType dtype) {
  const auto kind = config.decoder.norm;
  const bool pre = config.norm == NormPlacement::Pre;
  Folding folding;
  // The reading norm: before the attention where the model has one (a post-norm model's ln_1 sits
  // after the add and rescales the whole stream, not a path).
  if (pre) folding.query_norm = folding.key_norm = norm_scale(block.ln_1, kind, dtype);
  folding.post_norm = norm_scale(block.ln_attn_out, kind, dtype);  // Gemma 2/3, OLMo 2: a norm on the write
  folding.centre = kind == NormKind::LayerNorm && pre;
  return attention_weights(*block.attn, config.head_width(layer), kind, folding, dtype);
}

// A position table [P, d] as a reading norm sees a residual holding one row alone (centred for
// LayerNorm, divided by its root mean square).
torch::Tensor normalised_positions(torch::Tensor table, bool centre, double eps) {
  if (centre) table = table - table.mean(-1, true);
  // The norm's division too: a position alone in the residual is small beside a token, and its QK
  // pattern without the division would read as uniform.
  return table * torch::rsqrt(table.pow(2).mean(-1, true) + eps);
}

// A translation model's attention blocks in its one numbering: encoder self-attention (stream 0),
// then per decoder layer its self-attention (stream 1) and its cross-attention (queries from stream 1,
// keys and values from the encoder's output).
void translation_weights(TranslationTransformerImpl& model, const ModelConfig& config, torch::ScalarType dtype,
                         HeadWeights& weights) {
  const auto& part = config.translation;
  const bool pre = config.norm == NormPlacement::Pre;
  const auto kind = config.decoder.norm;
  for (int64_t layer = 0; layer < part.encoder_layers; ++layer)
    weights.layers.push_back(layer_weights(*model.encoder[layer]->as<TransformerBlockImpl>(), config, layer, dtype));
  // The cross-attention's keys and values read the encoder's output through its final norm (pre-norm).
  const auto memory_norm = pre ? layer_norm_scale(model.enc_ln_f, dtype) : torch::Tensor();
  for (int64_t layer = 0; layer < part.decoder_layers; ++layer) {
    auto& block = *model.decoder[layer]->as<DecoderBlockImpl>();
    const auto dh = config.head_width(config.block_index(AttentionKind::Decoder, layer));
    Folding self, cross;
    if (pre) {
      self.query_norm = self.key_norm = layer_norm_scale(block.ln_1, dtype);
      cross.query_norm = layer_norm_scale(block.ln_2, dtype);
      cross.key_norm = memory_norm;
    }
    self.centre = cross.centre = pre;  // LayerNorm reads both streams
    auto self_weights = attention_weights(*block.self_attn, dh, kind, self, dtype);
    self_weights.query_stream = self_weights.key_stream = self_weights.write_stream = 1;
    auto cross_weights = attention_weights(*block.cross_attn, dh, kind, cross, dtype);
    cross_weights.query_stream = cross_weights.write_stream = 1;
    weights.layers.push_back(std::move(self_weights));
    weights.layers.push_back(std::move(cross_weights));
  }
  weights.shared_vocabulary = part.share_embeddings;
  const double scale = part.scale_embedding ? std::sqrt(static_cast<double>(config.d_model)) : 1.0;
  const auto target = (model.tgt_emb ? model.tgt_emb->weight : model.tok_emb->weight).detach().to(torch::kCPU, dtype);
  auto source = model.tok_emb->weight.detach().to(torch::kCPU, dtype).t() * scale;  // [d, V]
  auto decoder_side = target.t() * scale;                                          // [d, V_target]
  weights.embedding = (pre ? centred(source) : source).contiguous();
  weights.decoder_embedding = (pre ? centred(decoder_side) : decoder_side).contiguous();
  const auto unembedding = model.lm_head ? model.lm_head->weight.detach().to(torch::kCPU, dtype) : target;
  const auto final_scale = pre ? layer_norm_scale(model.dec_ln_f, dtype) : torch::Tensor();
  weights.unembedding = final_scale.defined() ? unembedding * final_scale : unembedding;
  if (pre) {
    const auto offset = part.position_offset;
    const auto table = [&](const Lookup& learned) {
      return learned ? learned->weight.detach().to(torch::kCPU, dtype).narrow(0, offset, config.max_positions)
                     : sinusoid_table(config.max_positions, config.d_model, part.split_sinusoid).to(dtype);
    };
    weights.positions = normalised_positions(table(model.enc_pos), true, config.layer_norm_eps);
    weights.decoder_positions = normalised_positions(table(model.dec_pos), true, config.layer_norm_eps);
  }
}

}  // namespace

torch::ScalarType head_weights_dtype(const LoadedModel& loaded) {
  return static_cast<double>(loaded.parameter_count) > kFloat64Weights ? torch::kFloat32 : torch::kFloat64;
}

HeadWeights head_weights(const LoadedModel& loaded, const std::string& analysis, int64_t min_layers,
                         torch::ScalarType dtype) {
  auto* model = dynamic_cast<TransformerImpl*>(loaded.model.get());
  auto* translation = dynamic_cast<TranslationTransformerImpl*>(loaded.model.get());
  const auto& config = loaded.config;
  if (!model && !translation)
    throw Error(loaded.name + ": " + analysis + " reads the heads of transformer blocks; this checkpoint is " +
                describe_model_kind(config));
  if (config.n_blocks < min_layers)
    throw Error(loaded.name + ": " + analysis + " needs at least " + std::to_string(min_layers) +
                (translation ? " attention blocks; " : " layers; ") + loaded.name + " has " +
                std::to_string(config.n_blocks));
  c10::InferenceMode inference;
  HeadWeights weights;
  const bool pre = config.norm == NormPlacement::Pre;
  weights.centred = pre && config.decoder.norm == NormKind::LayerNorm;
  if (translation) {
    weights.translation = true;
    translation_weights(*translation, config, dtype, weights);
  } else {
    for (int64_t layer = 0; layer < config.n_blocks; ++layer)
      weights.layers.push_back(layer_weights(*model->layers[layer]->as<TransformerBlockImpl>(), config, layer, dtype));
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
      weights.positions = normalised_positions(table, weights.centred, config.layer_norm_eps);
    }
  }
  for (int64_t block = 0; block < config.n_blocks; ++block)
    weights.layers[block].score_scale =
        1.0 / std::sqrt(config.decoder.query_scale > 0 ? config.decoder.query_scale
                                                       : static_cast<double>(config.head_width(block)));
  std::string folded = pre ? "reading norm weights folded into W_Q, W_K, W_V" : "post-norm model: no norm folded";
  if (translation && pre && translation->enc_ln_f) folded += " (the encoder's final norm into cross-attention's W_K, W_V)";
  if (config.decoder.post_norms) folded += "; the post-attention norm's weight into W_O";
  if (config.decoder.qk_norm != QkNorm::None) folded += "; the q/k norms' weights into W_Q, W_K";
  if (weights.centred) folded += "; W_O and W_E centred (LayerNorm)";
  weights.folded = folded;
  return weights;
}

}  // namespace aw
