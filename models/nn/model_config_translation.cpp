// models/nn/model_config_translation.cpp — config.json of the encoder–decoder translation families:
// the native transformer_mt (docs/translation.md) and Hugging Face's marian and bart. Their attention
// blocks are numbered encoder first, then each decoder layer's self- and cross-attention
// (model_config.h, TranslationPart).
#include "models/nn/model_config_parsers.h"

namespace aw {
namespace config_parsing {
namespace {

// The block layout of a translation model (model_config.h, TranslationPart): Le encoder blocks, then
// each decoder layer's self- and cross-attention.
void set_translation_blocks(ModelConfig& config) {
  const auto& t = config.translation;
  config.n_blocks = t.encoder_layers + 2 * t.decoder_layers;
  config.n_heads = std::max(t.encoder_heads, t.decoder_heads);
  config.d_ff = t.encoder_ffn;
  config.causal = false;
  config.heads_per_block.assign(t.encoder_layers, t.encoder_heads);
  config.heads_per_block.resize(config.n_blocks, t.decoder_heads);
}

// Head widths of a translation model: stated, or d_model / heads on each side.
void set_translation_head_widths(const ConfigReader& reader, ModelConfig& config) {
  auto& t = config.translation;
  auto width = [&](int64_t heads, const char* side) {
    if (config.d_model % heads != 0)
      reader.fail("d_model " + std::to_string(config.d_model) + " is not divisible by the " + side + "'s " +
                  std::to_string(heads) + " heads");
    return config.d_model / heads;
  };
  config.d_head = reader.has("d_head") ? reader.positive_int("d_head") : width(t.encoder_heads, "encoder");
  t.decoder_d_head = reader.has("d_head") ? config.d_head : width(t.decoder_heads, "decoder");
}

}  // namespace

// transformer_mt: the native encoder–decoder Transformer (docs/translation.md).
void parse_transformer_mt(const ConfigReader& reader, ModelConfig& config) {
  auto& t = config.translation;
  config.vocab_size = reader.positive_int("vocab_size");
  t.target_vocab_size = reader.positive_int("target_vocab_size", config.vocab_size);
  t.share_embeddings = reader.boolean("share_embeddings", t.target_vocab_size == config.vocab_size);
  if (t.share_embeddings && t.target_vocab_size != config.vocab_size)
    reader.fail("share_embeddings needs target_vocab_size = vocab_size");
  t.encoder_layers = reader.layer_count("encoder_layers");
  t.decoder_layers = reader.layer_count("decoder_layers");
  // n_heads sets both sides; encoder_heads / decoder_heads override it (then n_heads may be absent).
  auto side_heads = [&](const std::string& key) {
    return reader.has(key) ? reader.positive_int(key) : reader.positive_int("n_heads");
  };
  t.encoder_heads = side_heads("encoder_heads");
  t.decoder_heads = side_heads("decoder_heads");
  config.d_model = reader.positive_int("d_model");
  const auto d_ff = reader.positive_int("d_ff", 4 * config.d_model);
  t.encoder_ffn = reader.positive_int("encoder_ffn", d_ff);
  t.decoder_ffn = reader.positive_int("decoder_ffn", d_ff);
  config.max_positions = reader.positive_int("max_positions");
  read_native_layout(reader, {"post", "sinusoidal", "relu"}, config);
  t.scale_embedding = reader.boolean("scale_embedding", true);
  t.final_norm = config.norm == NormPlacement::Pre;
  t.decoder_bird_eye = reader.boolean("decoder_bird_eye", false);
  t.decoder_diag_free_mask = reader.boolean("decoder_diag_free_mask", t.decoder_bird_eye);
  config.diag_mode = reader.choice("diag_mode", DiagMode::Normal);
  t.pad_id = reader.non_negative_int("pad_id", 0);
  t.bos_id = reader.non_negative_int("bos_id", 2);
  t.eos_id = reader.non_negative_int("eos_id", 3);
  t.decoder_start_id = reader.non_negative_int("decoder_start_id", t.bos_id);
  config.tokenizer = reader.choice("tokenizer", TokenizerKind::SentencePiece, {TokenizerKind::SentencePiece});
  set_translation_blocks(config);
  set_translation_head_widths(reader, config);
}

// marian and bart as Hugging Face writes them (MarianConfig, BartConfig).
void parse_hf_translation(const ConfigReader& reader, ModelConfig& config) {
  auto& t = config.translation;
  const bool marian = config.family == ModelFamily::Marian;
  config.vocab_size = reader.positive_int("vocab_size");
  t.target_vocab_size = reader.positive_int("decoder_vocab_size", config.vocab_size);
  t.share_embeddings = !marian || reader.boolean("share_encoder_decoder_embeddings", true);
  if (t.target_vocab_size != config.vocab_size)
    reader.fail("separate source and target vocabularies (decoder_vocab_size " + std::to_string(t.target_vocab_size) +
                " ≠ vocab_size " + std::to_string(config.vocab_size) + ") are not supported");
  t.encoder_layers = reader.layer_count("encoder_layers");
  t.decoder_layers = reader.layer_count("decoder_layers");
  t.encoder_heads = reader.positive_int("encoder_attention_heads");
  t.decoder_heads = reader.positive_int("decoder_attention_heads");
  config.d_model = reader.positive_int("d_model");
  t.encoder_ffn = reader.positive_int("encoder_ffn_dim");
  t.decoder_ffn = reader.positive_int("decoder_ffn_dim");
  config.max_positions = reader.positive_int("max_position_embeddings");
  if (reader.boolean("normalize_before", false))
    reader.fail("normalize_before = true (pre-LayerNorm mBART layout) is not supported");
  config.norm = NormPlacement::Post;
  config.positions = marian ? PositionKind::Sinusoidal : PositionKind::Learned;
  t.split_sinusoid = marian;
  t.position_offset = marian ? 0 : 2;
  t.embedding_norm = !marian;
  t.final_logits_bias = true;
  config.tie_embeddings = reader.boolean("tie_word_embeddings", true);
  config.activation = parse_activation(reader, "activation_function", marian ? "swish" : "gelu");
  config.layer_norm_eps = 1e-5;  // nn.LayerNorm's default, which both classes use
  config.dropout = reader.number("dropout", 0.1);
  t.scale_embedding = reader.boolean("scale_embedding", marian);
  t.pad_id = reader.non_negative_int("pad_token_id", marian ? config.vocab_size - 1 : 1);
  t.eos_id = reader.non_negative_int("eos_token_id", marian ? 0 : 2);
  t.bos_id = marian ? -1 : reader.non_negative_int("bos_token_id", 0);
  t.decoder_start_id = reader.non_negative_int("decoder_start_token_id", marian ? t.pad_id : t.eos_id);
  config.tokenizer = marian ? TokenizerKind::SentencePiecePair : TokenizerKind::Gpt2Bpe;
  set_translation_blocks(config);
  set_translation_head_widths(reader, config);
}

}  // namespace config_parsing
}  // namespace aw
