// models/nn/model_config.cpp — what a ModelConfig says about its attention blocks (their kinds and
// numbering, head counts), the checks analyses make of it, and the names of its modes. config.json
// is read by model_config_parse.cpp and written by model_config_json.cpp.
#include "models/nn/model_config.h"

#include "models/errors.h"

#include <algorithm>
#include <numeric>

namespace aw {

AttentionBlock ModelConfig::attention_block(int64_t block) const {
  if (!is_translation()) return {causal ? AttentionKind::Decoder : AttentionKind::Encoder, block};
  const auto encoder_layers = translation.encoder_layers;
  if (block < encoder_layers) return {AttentionKind::Encoder, block};
  const auto offset = block - encoder_layers;
  return {offset % 2 == 0 ? AttentionKind::Decoder : AttentionKind::Cross, offset / 2};
}

int64_t ModelConfig::block_index(AttentionKind kind, int64_t layer) const {
  if (layer < 0) return -1;
  if (!is_translation()) return kind == attention_block(0).kind && layer < n_blocks ? layer : -1;
  if (kind == AttentionKind::Encoder) return layer < translation.encoder_layers ? layer : -1;
  if (layer >= translation.decoder_layers) return -1;
  return translation.encoder_layers + 2 * layer + (kind == AttentionKind::Cross ? 1 : 0);
}

std::vector<AttentionKind> ModelConfig::attention_kinds() const {
  if (is_translation()) return {kAttentionKinds.begin(), kAttentionKinds.end()};
  return {attention_block(0).kind};
}

int64_t ModelConfig::total_heads() const {
  return std::accumulate(heads_per_block.begin(), heads_per_block.end(), int64_t{0});
}

int64_t ModelConfig::max_heads() const {
  return heads_per_block.empty() ? 0 : *std::max_element(heads_per_block.begin(), heads_per_block.end());
}

void require_token_attention(const ModelConfig& config, const std::string& model_name, const std::string& analysis) {
  if (config.has_token_attention()) return;
  throw Error(model_name + " is a " + config.family_name() + " model; " + analysis +
              " needs token-to-token attention (a transformer), " +
              (config.has_lama_attention() ? "LAMA attends from one global context to the words (try word-weights)"
                                           : "and this model has no attention"));
}

void require_attention_heads(const ModelConfig& config, const std::string& model_name, const std::string& analysis) {
  if (config.total_heads() > 0) return;
  throw Error(model_name + " is a " + config.family_name() + " model without attention heads; " + analysis +
              " gates heads");
}

std::string to_string(NormPlacement norm) { return norm == NormPlacement::Pre ? "pre" : "post"; }
std::string to_string(PositionKind positions) {
  switch (positions) {
    case PositionKind::Learned: return "learned";
    case PositionKind::Sinusoidal: return "sinusoidal";
    case PositionKind::Rotary: return "rotary";
  }
  return "learned";
}
std::string to_string(NormKind norm) {
  switch (norm) {
    case NormKind::LayerNorm: return "layer_norm";
    case NormKind::RmsNorm: return "rms_norm";
    case NormKind::RmsNormPlusOne: return "rms_norm_plus_one";
  }
  return "layer_norm";
}
std::string to_string(Activation activation) {
  switch (activation) {
    case Activation::Relu: return "relu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_new";
    case Activation::Silu: return "silu";
  }
  return "gelu";
}

// A lower bound on the weights a model of `config` holds: its embedding tables and the matrices of
// every layer (attention projections, feed-forward, recurrent and classifier weights). Summed in
// double, so hostile sizes cannot overflow.
double minimum_weight_count(const ModelConfig& config) {
  const double d = static_cast<double>(config.d_model);
  if (config.is_recurrent()) {
    const auto& r = config.recurrent;
    const double e = static_cast<double>(r.embedding_dim), h = static_cast<double>(r.rnn_hidden);
    const double pooled = config.has_lama_attention() ? static_cast<double>(config.n_heads) * 2 * h : 2 * h;
    const double hidden = static_cast<double>(r.classifier_hidden);
    return static_cast<double>(config.vocab_size) * e + 6 * h * (e + h) + pooled * hidden +
           hidden * static_cast<double>(config.num_labels);
  }
  double count = static_cast<double>(config.vocab_size) * d + static_cast<double>(config.num_labels) * d +
                 static_cast<double>(config.bert.type_vocab_size) * d;
  if (config.positions == PositionKind::Learned) count += static_cast<double>(config.max_positions) * d;
  for (int64_t block = 0; block < config.n_blocks && block < static_cast<int64_t>(config.heads_per_block.size()); ++block)
    count += 2 * d * static_cast<double>(config.attention_width(block) + config.kv_width(block));
  if (config.is_translation()) {
    const auto& t = config.translation;
    if (!t.share_embeddings) count += static_cast<double>(t.target_vocab_size) * d;
    count += 2 * d * (static_cast<double>(t.encoder_layers) * static_cast<double>(t.encoder_ffn) +
                      static_cast<double>(t.decoder_layers) * static_cast<double>(t.decoder_ffn));
  } else {
    // Sparse layers: every expert's three matrices (MXFP4 stores two weights a byte, counted as one
    // value: half).
    const auto& moe = config.moe;
    const double expert_weights = 3 * d * static_cast<double>(moe.expert_ffn) * static_cast<double>(moe.experts) *
                                  (moe.mxfp4 ? 0.5 : 1.0);
    for (int64_t layer = 0; layer < config.n_blocks; ++layer)
      count += moe.sparse_layer(layer) ? expert_weights : 2 * d * static_cast<double>(config.d_ff);
  }
  return count;
}

}  // namespace aw
