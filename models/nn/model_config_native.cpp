// models/nn/model_config_native.cpp — config.json of the native families, as native_config_json
// writes it (model_config_json.cpp): the language models transformer_lm, bet_sf and bet_sg, the
// Transformer-encoder classifier, and the recurrent classifiers lama, bigru_mean and bigru_max.
// transformer_mt, native too, is parsed with the other translation families
// (model_config_translation.cpp).
#include "models/nn/model_config_parsers.h"

namespace aw {
namespace config_parsing {
namespace {

// Class names of a native classifier: "labels": ["1", "2", …] (index = class).
void parse_labels(const ConfigReader& reader, ModelConfig& config) {
  config.labels = reader.string_list("labels");
  config.num_labels = static_cast<int64_t>(config.labels.size());
  if (config.num_labels < 2) reader.fail("key 'labels' needs at least 2 classes");
}

}  // namespace

// transformer_lm, bet_sf and bet_sg: decoder language models; bet_sf reweights its scores (bird_eye).
void parse_native(const ConfigReader& reader, ModelConfig& config) {
  read_sizes(reader, {"n_layers", "n_heads", "d_model", "d_ff", true, "max_positions"}, config);
  config.causal = true;
  read_native_layout(reader, {"pre", "learned", "gelu"}, config);
  config.bird_eye = config.family == ModelFamily::BetSf;
  config.diag_free_mask = reader.boolean("diag_free_mask", config.bird_eye);
  config.diag_mode = reader.choice("diag_mode", DiagMode::Normal);
  config.tokenizer = reader.choice("tokenizer", TokenizerKind::Word, {TokenizerKind::Word});
  config.normalize_words = reader.boolean("normalize_words", false);
}

// The 1-layer Transformer-encoder baseline of LAMA: native sizes, bidirectional, mean pooling.
void parse_encoder_classifier(const ConfigReader& reader, ModelConfig& config) {
  parse_native(reader, config);
  config.causal = false;
  config.pooling = Pooling::Mean;
  parse_labels(reader, config);
}

// lama, bigru_mean and bigru_max: word embeddings → bi-GRU → (LAMA attention | mean | max) → MLP.
void parse_recurrent(const ConfigReader& reader, ModelConfig& config) {
  auto& recurrent = config.recurrent;
  config.vocab_size = reader.positive_int("vocab_size");
  recurrent.embedding_dim = reader.positive_int("embedding_dim");
  recurrent.rnn_hidden = reader.positive_int("rnn_hidden");
  recurrent.classifier_hidden = reader.positive_int("classifier_hidden", 512);
  config.max_positions = reader.positive_int("max_positions");
  config.dropout = reader.number("dropout", 0.4);
  config.causal = false;
  config.tie_embeddings = false;
  config.tokenizer = reader.choice("tokenizer", TokenizerKind::Word, {TokenizerKind::Word});
  config.normalize_words = reader.boolean("normalize_words", false);
  parse_labels(reader, config);
  config.d_model = 2 * recurrent.rnn_hidden;
  config.d_ff = recurrent.classifier_hidden;
  recurrent.pooling = config.family == ModelFamily::Lama        ? RecurrentPooling::Attention
                      : config.family == ModelFamily::BiGruMax ? RecurrentPooling::Max
                                                               : RecurrentPooling::Mean;
  if (recurrent.pooling == RecurrentPooling::Attention) {
    config.n_blocks = 1;
    config.n_heads = reader.positive_int("n_heads");
    config.d_head = config.d_model;
    recurrent.context = reader.choice("context", LamaContext::Learned);
    recurrent.regularizer = reader.choice("regularizer", Regularizer::None);
    recurrent.regularizer_weight = reader.number("regularizer_weight", 0.2);
    if (recurrent.regularizer_weight < 0)
      reader.fail("key 'regularizer_weight' must be ≥ 0, got " + std::to_string(recurrent.regularizer_weight));
  } else {
    config.n_blocks = 0;  // no attention at all: the baseline without it
    config.n_heads = 0;
  }
}

}  // namespace config_parsing
}  // namespace aw
