// models/nn/model_config_json.cpp — the config.json of a native model (native_config_json), as the
// parsers of model_config_native.cpp and model_config_translation.cpp read it back: what a training run
// or real pruning writes beside the weights.
#include "models/nn/model_config.h"

namespace aw {
namespace {

nlohmann::json recurrent_config_json(const ModelConfig& config) {
  const auto& recurrent = config.recurrent;
  nlohmann::json json = {
      {"model_type", config.family_name()},
      {"vocab_size", config.vocab_size},
      {"embedding_dim", recurrent.embedding_dim},
      {"rnn_hidden", recurrent.rnn_hidden},
      {"classifier_hidden", recurrent.classifier_hidden},
      {"max_positions", config.max_positions},
      {"dropout", config.dropout},
      {"labels", config.labels},
      {"tokenizer", to_string(config.tokenizer)},
      {"normalize_words", config.normalize_words},
  };
  if (config.has_lama_attention()) {
    json["n_heads"] = config.n_heads;
    json["context"] = to_string(recurrent.context);
    json["regularizer"] = to_string(recurrent.regularizer);
    json["regularizer_weight"] = recurrent.regularizer_weight;
  }
  return json;
}

// The keys every native transformer family writes the same way (language models, encoder
// classifiers and transformer_mt).
nlohmann::json transformer_config_json(const ModelConfig& config) {
  return {
      {"model_type", config.family_name()},
      {"vocab_size", config.vocab_size},
      {"d_model", config.d_model},
      {"max_positions", config.max_positions},
      {"norm", to_string(config.norm)},
      {"positions", to_string(config.positions)},
      {"tie_embeddings", config.tie_embeddings},
      {"activation", to_string(config.activation)},
      {"layer_norm_eps", config.layer_norm_eps},
      {"dropout", config.dropout},
      {"tokenizer", to_string(config.tokenizer)},
  };
}

nlohmann::json translation_config_json(const ModelConfig& config) {
  const auto& t = config.translation;
  auto json = transformer_config_json(config);
  json.update({
      {"target_vocab_size", t.target_vocab_size},
      {"share_embeddings", t.share_embeddings},
      {"encoder_layers", t.encoder_layers},
      {"decoder_layers", t.decoder_layers},
      {"n_heads", t.encoder_heads},
      {"encoder_heads", t.encoder_heads},
      {"decoder_heads", t.decoder_heads},
      {"encoder_ffn", t.encoder_ffn},
      {"decoder_ffn", t.decoder_ffn},
      {"scale_embedding", t.scale_embedding},
      {"decoder_bird_eye", t.decoder_bird_eye},
      {"decoder_diag_free_mask", t.decoder_diag_free_mask},
      {"pad_id", t.pad_id},
      {"bos_id", t.bos_id},
      {"eos_id", t.eos_id},
      {"decoder_start_id", t.decoder_start_id},
  });
  if (config.diag_mode != DiagMode::Normal) json["diag_mode"] = to_string(config.diag_mode);
  // d_head is written unless d_model / heads gives it on both sides (exactly: with d_model 129 and
  // 4 heads of 32 it must be written, or the file would not read back; fuzz_config found that).
  const auto implied = [&](int64_t heads, int64_t width) {
    return config.d_model % heads == 0 && width == config.d_model / heads;
  };
  if (!implied(t.encoder_heads, config.d_head) || !implied(t.decoder_heads, t.decoder_d_head))
    json["d_head"] = config.d_head;
  const auto full = t.encoder_layers * t.encoder_heads + 2 * t.decoder_layers * t.decoder_heads;
  if (config.total_heads() != full) json["heads_per_layer"] = config.heads_per_block;
  return json;
}

}  // namespace

nlohmann::json native_config_json(const ModelConfig& config) {
  if (config.is_recurrent()) return recurrent_config_json(config);
  if (config.is_translation()) return translation_config_json(config);
  auto json = transformer_config_json(config);
  json.update({{"n_layers", config.n_blocks}, {"n_heads", config.n_heads}, {"d_head", config.d_head}, {"d_ff", config.d_ff}});
  if (config.bird_eye) json["diag_free_mask"] = config.diag_free_mask;
  if (config.diag_mode != DiagMode::Normal) json["diag_mode"] = to_string(config.diag_mode);
  if (config.total_heads() != config.n_blocks * config.n_heads) json["heads_per_layer"] = config.heads_per_block;
  if (config.normalize_words) json["normalize_words"] = true;
  if (config.is_classifier()) json["labels"] = config.labels;
  return json;
}

}  // namespace aw
