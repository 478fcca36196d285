// models/nn/model_config.cpp — config.json parsing for the native and Hugging Face families.
#include "models/nn/model_config.h"

#include "models/errors.h"
#include "models/json_input.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace aw {
namespace {

using nlohmann::json;

// Typed access to config keys with errors that name the file and the key.
class ConfigReader {
 public:
  static constexpr int64_t kMaxConfigInteger = int64_t{1} << 24;
  static constexpr int64_t kMaxLayers = 4096;   // per stack; the largest published models have < 200
  static constexpr int64_t kMaxLabels = 100000; // classifier classes, each with a name string

  ConfigReader(const json& root, std::string path) : root_(root), path_(std::move(path)) {}

  bool has(const std::string& key) const { return root_.contains(key) && !root_.at(key).is_null(); }

  int64_t positive_int(const std::string& key) const {
    if (!has(key)) fail_in_file(path_, "missing key '" + key + "'");
    return positive_int_value(key, root_.at(key));
  }
  int64_t positive_int(const std::string& key, int64_t fallback) const {
    return has(key) ? positive_int(key) : fallback;
  }
  // A positive integer of at most `limit`, for counts that size per-item lists.
  int64_t bounded_int(const std::string& key, int64_t fallback, int64_t limit) const {
    return has(key) ? positive_int_value(key, root_.at(key), limit) : fallback;
  }
  int64_t layer_count(const std::string& key) const {
    if (!has(key)) fail_in_file(path_, "missing key '" + key + "'");
    return bounded_int(key, 0, kMaxLayers);
  }
  int64_t non_negative_int(const std::string& key, int64_t fallback) const {
    if (!has(key)) return fallback;
    const json& value = root_.at(key);
    if (!value.is_number_integer() || value.get<int64_t>() < 0)
      fail_in_file(path_, "key '" + key + "' must be a non-negative integer, got " + json_excerpt(value));
    return capped(key, value.get<int64_t>());
  }
  double number(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    const json& value = root_.at(key);
    if (!value.is_number()) fail_in_file(path_, "key '" + key + "' must be a number, got " + json_excerpt(value));
    return value.get<double>();
  }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& value = root_.at(key);
    if (!value.is_boolean()) fail_in_file(path_, "key '" + key + "' must be true or false, got " + json_excerpt(value));
    return value.get<bool>();
  }
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     const std::string& fallback) const {
    if (!has(key)) return fallback;
    const json& value = root_.at(key);
    if (value.is_string()) {
      const auto text = value.get<std::string>();
      if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
    }
    std::string options;
    for (const auto& option : allowed) options += (options.empty() ? "" : ", ") + option;
    fail_in_file(path_, "key '" + key + "' must be one of " + options + ", got " + json_excerpt(value));
  }
  // A named mode: one of `allowed` (all values when empty), spelled as EnumNames<Enum> spells it.
  template <typename Enum>
  Enum choice(const std::string& key, Enum fallback, std::vector<Enum> allowed = {}) const {
    if (allowed.empty())
      for (auto value : all_values<Enum>()) allowed.push_back(value);
    std::vector<std::string> names;
    for (auto value : allowed) names.push_back(to_string(value));
    return *parse_enum<Enum>(choice(key, names, to_string(fallback)));
  }
  std::vector<int64_t> int_list(const std::string& key) const {
    const json& value = root_.at(key);
    if (!value.is_array()) fail_in_file(path_, "key '" + key + "' must be a list of integers");
    std::vector<int64_t> values;
    for (const auto& item : value) {
      if (!item.is_number_integer() || item.get<int64_t>() < 0)
        fail_in_file(path_, "key '" + key + "' must be a list of non-negative integers, got " + json_excerpt(value));
      values.push_back(capped(key, item.get<int64_t>()));
    }
    return values;
  }
  std::vector<std::string> string_list(const std::string& key) const {
    if (!has(key)) fail_in_file(path_, "missing key '" + key + "'");
    const json& value = root_.at(key);
    std::vector<std::string> values;
    if (value.is_array())
      for (const auto& item : value)
        if (item.is_string()) values.push_back(item.get<std::string>());
    if (!value.is_array() || values.size() != value.size() || values.empty())
      fail_in_file(path_, "key '" + key + "' must be a non-empty list of strings, got " + json_excerpt(value));
    return values;
  }
  [[noreturn]] void fail(const std::string& message) const { fail_in_file(path_, message); }

 private:
  int64_t positive_int_value(const std::string& key, const json& value, int64_t limit = kMaxConfigInteger) const {
    if (!value.is_number_integer() || value.get<int64_t>() <= 0)
      fail_in_file(path_, "key '" + key + "' must be a positive integer, got " + json_excerpt(value));
    return capped(key, value.get<int64_t>(), limit);
  }
  // Every size, count and id of a config is at most kMaxConfigInteger: checked before anything is
  // allocated from it (a hostile n_blocks or num_labels would otherwise size lists of billions), and
  // small enough that the products the configs form (4·d_model, 2·hidden) cannot overflow.
  int64_t capped(const std::string& key, int64_t value, int64_t limit = kMaxConfigInteger) const {
    if (value > limit)
      fail_in_file(path_, "key '" + key + "' is " + std::to_string(value) + ", more than this tool accepts (" +
                              std::to_string(limit) + ")");
    return value;
  }
  const json& root_;
  std::string path_;
};

Activation parse_activation(const ConfigReader& reader, const std::string& key, const std::string& fallback) {
  const auto name = reader.choice(key, {"relu", "gelu", "gelu_new", "gelu_pytorch_tanh", "swish", "silu"}, fallback);
  if (name == "relu") return Activation::Relu;
  if (name == "swish" || name == "silu") return Activation::Silu;
  if (name == "gelu") return Activation::Gelu;
  return Activation::GeluTanh;
}

void parse_native(const ConfigReader& reader, ModelConfig& config) {
  config.vocab_size = reader.positive_int("vocab_size");
  config.n_blocks = reader.layer_count("n_layers");
  config.n_heads = reader.positive_int("n_heads");
  config.d_model = reader.positive_int("d_model");
  config.d_ff = reader.positive_int("d_ff", 4 * config.d_model);
  config.max_positions = reader.positive_int("max_positions");
  config.causal = true;
  config.norm = reader.choice("norm", {"pre", "post"}, "pre") == "pre" ? NormPlacement::Pre : NormPlacement::Post;
  config.positions = reader.choice("positions", {"learned", "sinusoidal"}, "learned") == "learned"
                         ? PositionKind::Learned
                         : PositionKind::Sinusoidal;
  config.tie_embeddings = reader.boolean("tie_embeddings", true);
  config.activation = parse_activation(reader, "activation", "gelu");
  config.layer_norm_eps = reader.number("layer_norm_eps", 1e-5);
  config.dropout = reader.number("dropout", 0.1);
  config.bird_eye = config.family == ModelFamily::BetSf;
  config.diag_free_mask = reader.boolean("diag_free_mask", config.bird_eye);
  config.diag_mode = reader.choice("diag_mode", DiagMode::Normal);
  config.tokenizer = reader.choice("tokenizer", TokenizerKind::Word, {TokenizerKind::Word});
  config.normalize_words = reader.boolean("normalize_words", false);
}

// Class names of a native classifier: "labels": ["1", "2", …] (index = class).
void parse_labels(const ConfigReader& reader, ModelConfig& config) {
  config.labels = reader.string_list("labels");
  config.num_labels = static_cast<int64_t>(config.labels.size());
  if (config.num_labels < 2) reader.fail("key 'labels' needs at least 2 classes");
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

void parse_gpt2(const ConfigReader& reader, ModelConfig& config) {
  config.vocab_size = reader.positive_int("vocab_size");
  config.n_blocks = reader.layer_count("n_layer");
  config.n_heads = reader.positive_int("n_head");
  config.d_model = reader.positive_int("n_embd");
  config.d_ff = reader.positive_int("n_inner", 4 * config.d_model);
  config.max_positions = reader.has("n_positions") ? reader.positive_int("n_positions") : reader.positive_int("n_ctx");
  config.causal = true;
  config.norm = NormPlacement::Pre;
  config.positions = PositionKind::Learned;
  config.tie_embeddings = true;
  config.activation = parse_activation(reader, "activation_function", "gelu_new");
  config.layer_norm_eps = reader.number("layer_norm_epsilon", 1e-5);
  config.dropout = reader.number("resid_pdrop", 0.1);
  config.tokenizer = TokenizerKind::Gpt2Bpe;
}

void parse_bert(const nlohmann::json& root, const ConfigReader& reader, ModelConfig& config) {
  config.vocab_size = reader.positive_int("vocab_size");
  config.n_blocks = reader.layer_count("num_hidden_layers");
  config.n_heads = reader.positive_int("num_attention_heads");
  config.d_model = reader.positive_int("hidden_size");
  config.d_ff = reader.positive_int("intermediate_size");
  config.max_positions = reader.positive_int("max_position_embeddings");
  config.causal = false;
  config.norm = NormPlacement::Post;
  config.positions = PositionKind::Learned;
  config.tie_embeddings = false;
  config.activation = parse_activation(reader, "hidden_act", "gelu");
  config.layer_norm_eps = reader.number("layer_norm_eps", 1e-12);
  config.dropout = reader.number("hidden_dropout_prob", 0.1);
  config.bert.type_vocab_size = reader.non_negative_int("type_vocab_size", 2);
  config.bert.embedding_norm = true;
  config.tokenizer = TokenizerKind::WordPiece;

  bool classifier = false;
  if (root.contains("architectures") && root.at("architectures").is_array())
    for (const auto& name : root.at("architectures"))
      if (name.is_string() && name.get<std::string>() == "BertForSequenceClassification") classifier = true;
  if (!classifier) return;
  config.bert.pooler = true;
  if (root.contains("id2label") && root.at("id2label").is_object()) {
    const auto& id2label = root.at("id2label");
    config.num_labels = static_cast<int64_t>(id2label.size());
    config.labels.resize(config.num_labels);
    for (int64_t i = 0; i < config.num_labels; ++i) {
      const auto key = std::to_string(i);
      if (!id2label.contains(key) || !id2label.at(key).is_string())
        reader.fail("id2label must map \"0\".." + std::to_string(config.num_labels - 1) + " to names");
      config.labels[i] = id2label.at(key).get<std::string>();
    }
  } else {
    config.num_labels = reader.bounded_int("num_labels", 2, ConfigReader::kMaxLabels);
    for (int64_t i = 0; i < config.num_labels; ++i) config.labels.push_back("LABEL_" + std::to_string(i));
  }
}

// Rotary settings, as transformers v4 writes them (rope_theta, rope_scaling; GPT-NeoX's rotary_pct and
// rotary_emb_base) or v5 (one rope_parameters object). Scalings other than linear and llama3 change
// the angles in ways not implemented here, so they are refused rather than approximated.
void parse_rotary(const nlohmann::json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config,
                  double rotated_fraction) {
  auto& rotary = config.rotary;
  const bool neox = config.family == ModelFamily::GptNeox;
  rotary.theta = neox ? reader.number("rotary_emb_base", reader.number("rope_theta", 10000.0))
                      : reader.number("rope_theta", 10000.0);
  const char* scaling_key = reader.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (reader.has(scaling_key)) {
    const auto& scaling = root.at(scaling_key);
    if (!scaling.is_object()) reader.fail(std::string("key '") + scaling_key + "' must be an object, got " + json_excerpt(scaling));
    const ConfigReader sub(scaling, path + " (" + scaling_key + ")");
    const auto type_key = sub.has("rope_type") ? "rope_type" : "type";
    const auto type = sub.choice(type_key, {"default", "linear", "llama3", "dynamic", "yarn", "longrope", "su", "proportional"},
                                 "default");
    if (type != "default" && type != "linear" && type != "llama3")
      sub.fail("rope scaling '" + type + "' is not supported (supported: default, linear, llama3)");
    rotary.scaling = *parse_enum<RopeScaling>(type);
    rotary.theta = sub.number("rope_theta", rotary.theta);
    rotated_fraction = sub.number("partial_rotary_factor", rotated_fraction);
    if (rotary.scaling != RopeScaling::Default) {
      rotary.factor = sub.number("factor", 1.0);
      if (!(rotary.factor >= 1.0)) sub.fail("key 'factor' must be ≥ 1, got " + json_excerpt(scaling.at("factor")));
    }
    if (rotary.scaling == RopeScaling::Llama3) {
      rotary.low_freq_factor = sub.number("low_freq_factor", 1.0);
      rotary.high_freq_factor = sub.number("high_freq_factor", 4.0);
      rotary.original_max_positions = sub.positive_int("original_max_position_embeddings", 8192);
      if (!(rotary.high_freq_factor > rotary.low_freq_factor) || !(rotary.low_freq_factor > 0))
        sub.fail("llama3 scaling needs 0 < low_freq_factor < high_freq_factor");
    }
  }
  if (!(rotary.theta > 1.0)) reader.fail("the rotary base (rope_theta) must be > 1, got " + std::to_string(rotary.theta));
  if (!(rotated_fraction > 0.0 && rotated_fraction <= 1.0))
    reader.fail("the rotated fraction of a head (rotary_pct) must be in (0, 1], got " + std::to_string(rotated_fraction));
  // Hugging Face truncates d_head × fraction to an integer; an odd width cannot be split in halves.
  rotary.dims = static_cast<int64_t>(static_cast<double>(config.d_head) * rotated_fraction);
  if (rotary.dims % 2 != 0 || rotary.dims == 0)
    reader.fail("rotary width " + std::to_string(rotary.dims) + " (head width " + std::to_string(config.d_head) +
                " × " + std::to_string(rotated_fraction) + ") must be even and positive");
}

// llama, mistral, qwen2 (modeling_llama.py and its copies) and gpt_neox (modeling_gpt_neox.py), as
// their config.json files are downloaded: pre-norm decoders with rotary positions.
void parse_rotary_decoder(const nlohmann::json& root, const ConfigReader& reader, const std::string& path,
                          ModelConfig& config) {
  const bool neox = config.family == ModelFamily::GptNeox;
  auto& decoder = config.decoder;
  config.vocab_size = reader.positive_int("vocab_size");
  config.n_blocks = reader.layer_count("num_hidden_layers");
  config.n_heads = reader.positive_int("num_attention_heads");
  config.d_model = reader.positive_int("hidden_size");
  config.d_ff = reader.positive_int("intermediate_size");
  config.max_positions = reader.positive_int("max_position_embeddings", 2048);
  config.causal = true;
  config.norm = NormPlacement::Pre;
  config.positions = PositionKind::Rotary;
  config.tie_embeddings = reader.boolean("tie_word_embeddings", false);
  config.dropout = 0.0;  // inference only: these families are loaded, never trained here
  config.tokenizer = TokenizerKind::HfJson;
  if (reader.has("head_dim")) config.d_head = reader.positive_int("head_dim");
  else if (config.d_model % config.n_heads != 0)
    reader.fail("hidden_size " + std::to_string(config.d_model) + " is not divisible by " +
                std::to_string(config.n_heads) + " attention heads");
  else config.d_head = config.d_model / config.n_heads;

  if (neox) {
    config.activation = parse_activation(reader, "hidden_act", "gelu");
    config.layer_norm_eps = reader.number("layer_norm_eps", 1e-5);
    decoder.parallel_residual = reader.boolean("use_parallel_residual", true);
    decoder.qkv_bias = decoder.out_bias = reader.boolean("attention_bias", true);
    decoder.kv_heads = config.n_heads;
    parse_rotary(root, reader, path, config, reader.number("rotary_pct", 0.25));
    return;
  }
  config.activation = parse_activation(reader, "hidden_act", "silu");
  config.layer_norm_eps = reader.number("rms_norm_eps", 1e-6);
  decoder.norm = NormKind::RmsNorm;
  decoder.gated_mlp = true;
  decoder.kv_heads = reader.positive_int("num_key_value_heads", config.n_heads);
  decoder.grouped_query = true;
  if (config.n_heads % decoder.kv_heads != 0)
    reader.fail(std::to_string(config.n_heads) + " attention heads cannot be grouped over " +
                std::to_string(decoder.kv_heads) + " key/value heads (num_key_value_heads must divide num_attention_heads)");
  if (config.family == ModelFamily::Qwen2) {
    decoder.qkv_bias = true;
    decoder.out_bias = decoder.mlp_bias = false;
    if (reader.boolean("use_sliding_window", false))
      reader.fail("use_sliding_window true is not supported for qwen2 (its window starts at max_window_layers)");
  } else {
    decoder.qkv_bias = decoder.out_bias = reader.boolean("attention_bias", false);
    decoder.mlp_bias = reader.boolean("mlp_bias", false);
  }
  if (config.family == ModelFamily::Mistral) decoder.sliding_window = reader.non_negative_int("sliding_window", 0);
  parse_rotary(root, reader, path, config, 1.0);
}

// The key/value groups of a grouped-query model: stated per layer (a pruned model, "query_groups")
// or n_heads / kv_heads query heads for each of kv_heads key/value heads.
void set_query_groups(const nlohmann::json& root, const std::string& path, ModelConfig& config) {
  auto& groups = config.decoder.query_groups;
  const int64_t per_group = config.n_heads / config.decoder.kv_heads;
  if (!root.contains("query_groups")) {
    for (int64_t layer = 0; layer < config.n_blocks; ++layer)
      groups.emplace_back(static_cast<size_t>(config.decoder.kv_heads), per_group);
  } else {
    const auto& value = root.at("query_groups");
    const auto fail = [&](const std::string& why) {
      fail_in_file(path, "query_groups " + why + ", got " + json_excerpt(value));
    };
    if (!value.is_array() || static_cast<int64_t>(value.size()) != config.n_blocks) fail("must list one entry per layer");
    for (const auto& layer : value) {
      if (!layer.is_array() || static_cast<int64_t>(layer.size()) > config.decoder.kv_heads)
        fail("must give each layer at most " + std::to_string(config.decoder.kv_heads) + " group sizes");
      std::vector<int64_t> sizes;
      for (const auto& size : layer) {
        if (!size.is_number_integer() || size.get<int64_t>() < 1 || size.get<int64_t>() > per_group)
          fail("sizes must be integers in 1.." + std::to_string(per_group));
        sizes.push_back(size.get<int64_t>());
      }
      groups.push_back(std::move(sizes));
    }
  }
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    const auto& sizes = groups[layer];
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != config.heads_per_block[layer])
      fail_in_file(path, "query_groups of layer " + std::to_string(layer + 1) + " hold " +
                             std::to_string(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})) +
                             " query heads but heads_per_block gives it " + std::to_string(config.heads_per_block[layer]));
  }
}

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
  config.norm = reader.choice("norm", {"pre", "post"}, "post") == "pre" ? NormPlacement::Pre : NormPlacement::Post;
  config.positions = reader.choice("positions", {"learned", "sinusoidal"}, "sinusoidal") == "learned"
                         ? PositionKind::Learned
                         : PositionKind::Sinusoidal;
  config.tie_embeddings = reader.boolean("tie_embeddings", true);
  config.activation = parse_activation(reader, "activation", "relu");
  config.layer_norm_eps = reader.number("layer_norm_eps", 1e-5);
  config.dropout = reader.number("dropout", 0.1);
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

}  // namespace

// Per group of families: the network, the folder format, what `attention-cli train` trains, and
// whether real pruning saves it.
FamilyTraits family_traits(ModelFamily family) {
  switch (family) {
    case ModelFamily::TransformerLm:
    case ModelFamily::BetSf:
    case ModelFamily::BetSg:
      return {Network::Transformer, CheckpointFormat::Native, TrainedAs::LanguageModel, true};
    case ModelFamily::EncoderClassifier:
      return {Network::Transformer, CheckpointFormat::Native, TrainedAs::Classifier, false};
    case ModelFamily::Lama:
    case ModelFamily::BiGruMean:
    case ModelFamily::BiGruMax: return {Network::Recurrent, CheckpointFormat::Native, TrainedAs::Classifier, false};
    case ModelFamily::TransformerMt:
      return {Network::EncoderDecoder, CheckpointFormat::Native, TrainedAs::Translation, true};
    case ModelFamily::Gpt2:
    case ModelFamily::Bert: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, false};
    case ModelFamily::Marian:
    case ModelFamily::Bart: return {Network::EncoderDecoder, CheckpointFormat::HuggingFace, TrainedAs::None, false};
    case ModelFamily::Llama:
    case ModelFamily::Mistral:
    case ModelFamily::Qwen2:
    case ModelFamily::GptNeox: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, true};
  }
  return {};
}

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

ModelConfig parse_model_config(const nlohmann::json& json, const std::string& path) {
  if (!json.is_object()) fail_in_file(path, "config must be a JSON object");
  ConfigReader reader(json, path);
  if (!reader.has("model_type")) fail_in_file(path, "missing key 'model_type'");
  if (!json.at("model_type").is_string()) fail_in_file(path, "key 'model_type' must be a string");

  const auto model_type = json.at("model_type").get<std::string>();
  const auto family = parse_enum<ModelFamily>(model_type);
  if (!family) {
    std::string known;
    for (const auto* name : EnumNames<ModelFamily>::names) known += (known.empty() ? "" : ", ") + std::string(name);
    fail_in_file(path, "unknown model_type " + quoted_excerpt(model_type) + " (known: " + known + ")");
  }
  ModelConfig config;
  config.family = *family;
  const auto traits = family_traits(config.family);
  config.network = traits.network;
  config.format = traits.format;
  config.trained_as = traits.trained_as;
  config.real_pruning = traits.real_pruning;
  switch (config.family) {
    case ModelFamily::TransformerLm:
    case ModelFamily::BetSf:
    case ModelFamily::BetSg: parse_native(reader, config); break;
    case ModelFamily::EncoderClassifier: parse_encoder_classifier(reader, config); break;
    case ModelFamily::Lama:
    case ModelFamily::BiGruMean:
    case ModelFamily::BiGruMax: parse_recurrent(reader, config); break;
    case ModelFamily::Gpt2: parse_gpt2(reader, config); break;
    case ModelFamily::Bert: parse_bert(json, reader, config); break;
    case ModelFamily::TransformerMt: parse_transformer_mt(reader, config); break;
    case ModelFamily::Marian:
    case ModelFamily::Bart: parse_hf_translation(reader, config); break;
    case ModelFamily::Llama:
    case ModelFamily::Mistral:
    case ModelFamily::Qwen2:
    case ModelFamily::GptNeox: parse_rotary_decoder(json, reader, path, config); break;
  }

  // Width of one head, where the family's parser left it unset (it sets the width of each side of a
  // translation model, a rotary decoder's head_dim, and a LAMA head's, the whole annotation 2h):
  // stated (pruned or non-square models) or d_model / n_heads. bigru_mean and bigru_max have no heads.
  if (config.d_head > 0 || config.n_heads == 0) {
    // set by the family's parser, or no heads
  } else if (reader.has("d_head")) {
    config.d_head = reader.positive_int("d_head");
  } else {
    if (config.d_model % config.n_heads != 0)
      fail_in_file(path, "d_model " + std::to_string(config.d_model) + " is not divisible by " +
                             std::to_string(config.n_heads) + " heads");
    config.d_head = config.d_model / config.n_heads;
  }
  // Heads left in each layer (after real pruning); all heads when absent.
  if (reader.has("heads_per_layer")) {
    config.heads_per_block = reader.int_list("heads_per_layer");
    if (static_cast<int64_t>(config.heads_per_block.size()) != config.n_blocks)
      fail_in_file(path, "heads_per_layer has " + std::to_string(config.heads_per_block.size()) +
                             " entries for " + std::to_string(config.n_blocks) + " layers");
    for (int64_t block = 0; block < config.n_blocks; ++block) {
      const auto heads = config.heads_per_block[block];
      const auto most = config.is_translation() && config.attention_block(block).kind != AttentionKind::Encoder
                            ? config.translation.decoder_heads
                            : config.is_translation() ? config.translation.encoder_heads : config.n_heads;
      if (heads < 0 || heads > most)
        fail_in_file(path, "heads_per_layer entry " + std::to_string(heads) + " is outside 0.." + std::to_string(most));
    }
  } else if (!config.is_translation()) {
    config.heads_per_block.assign(config.n_blocks, config.n_heads);
  }
  if (config.decoder.grouped_query) set_query_groups(json, path, config);
  if (config.dropout < 0.0 || config.dropout >= 1.0)
    fail_in_file(path, "dropout must be in [0, 1), got " + std::to_string(config.dropout));
  // The sinusoid table is computed, not stored, so no file size bounds it: 2^27 values (1 GB while
  // built in float64) is far beyond any real model's max_positions × d_model.
  constexpr int64_t kMaxSinusoidValues = int64_t{1} << 27;
  if (config.positions == PositionKind::Sinusoidal && config.max_positions > kMaxSinusoidValues / config.d_model)
    fail_in_file(path, "max_positions " + std::to_string(config.max_positions) + " × d_model " +
                           std::to_string(config.d_model) + " is too large for a sinusoid table (at most 2^27 values)");
  return config;
}

ModelConfig read_model_config(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::exists(dir)) throw Error(dir + ": no such file or directory");
  if (!fs::is_directory(dir)) fail_in_file(dir, "not a checkpoint folder (expected a directory with config.json)");
  const auto path = (fs::path(dir) / "config.json").string();
  if (!fs::exists(path)) fail_in_file(dir, "no config.json in this folder");
  return parse_model_config(read_untrusted_json(path), path);
}

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
std::string to_string(NormKind norm) { return norm == NormKind::RmsNorm ? "rms_norm" : "layer_norm"; }
std::string to_string(Activation activation) {
  switch (activation) {
    case Activation::Relu: return "relu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_new";
    case Activation::Silu: return "silu";
  }
  return "gelu";
}

}  // namespace aw
