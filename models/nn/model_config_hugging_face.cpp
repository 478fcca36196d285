// models/nn/model_config_hugging_face.cpp — config.json of the Hugging Face families other than the
// translation ones, as their files are downloaded: gpt2, bert, and the decoders with rotary positions
// (llama, mistral, qwen2, gpt_neox) with their rotary settings and key/value groups
// (docs/checkpoint-format.md).
#include "models/nn/model_config_parsers.h"

#include <cmath>
#include <numeric>

namespace aw {
namespace config_parsing {

namespace {

// YaRN (Peng et al. 2023) as transformers computes it: the ramp between the rotations beta_fast and
// beta_slow, and the attention factor stated or from the factor (0.1 · mscale · ln factor + 1).
void read_yarn(const ConfigReader& sub, RotaryPart& rotary) {
  rotary.original_max_positions = sub.positive_int("original_max_position_embeddings");
  rotary.beta_fast = sub.number("beta_fast", 32.0);
  rotary.beta_slow = sub.number("beta_slow", 1.0);
  rotary.truncate = sub.boolean("truncate", true);
  if (!(rotary.beta_fast > rotary.beta_slow) || !(rotary.beta_slow > 0))
    sub.fail("yarn scaling needs 0 < beta_slow < beta_fast");
  const auto mscale = [&](double scale) { return rotary.factor <= 1 ? 1.0 : 0.1 * scale * std::log(rotary.factor) + 1.0; };
  if (sub.has("attention_factor")) rotary.attention_factor = sub.number("attention_factor", 1.0);
  else if (sub.has("mscale") && sub.has("mscale_all_dim") && sub.number("mscale", 0) != 0 && sub.number("mscale_all_dim", 0) != 0)
    rotary.attention_factor = mscale(sub.number("mscale", 1.0)) / mscale(sub.number("mscale_all_dim", 1.0));
  else rotary.attention_factor = mscale(1.0);
  if (!(rotary.attention_factor > 0)) sub.fail("yarn's attention_factor must be > 0");
}

}  // namespace

// One rope object (rope_parameters, rope_scaling, or one layer type's entry of Gemma 3's
// rope_parameters) into `rotary`: its type, base and scaling, and its rotated fraction of a head.
// Scalings other than linear and llama3 change the angles in ways not implemented here, so they are
// refused rather than approximated.
void read_rope_object(const json& object, const std::string& what, RotaryPart& rotary, double& rotated_fraction) {
  if (!object.is_object()) fail_in_file(what, "must be an object, got " + json_excerpt(object));
  const ConfigReader sub(object, what);
  const auto type_key = sub.has("rope_type") ? "rope_type" : "type";
  const auto type = sub.choice(type_key, {"default", "linear", "llama3", "dynamic", "yarn", "longrope", "su", "proportional"},
                               "default");
  if (type != "default" && type != "linear" && type != "llama3" && type != "yarn")
    sub.fail("rope scaling '" + type + "' is not supported (supported: default, linear, llama3, yarn)");
  rotary.scaling = *parse_enum<RopeScaling>(type);
  rotary.theta = sub.number("rope_theta", rotary.theta);
  rotated_fraction = sub.number("partial_rotary_factor", rotated_fraction);
  if (rotary.scaling != RopeScaling::Default) {
    rotary.factor = sub.number("factor", 1.0);
    if (!(rotary.factor >= 1.0)) sub.fail("key 'factor' must be ≥ 1, got " + json_excerpt(object.at("factor")));
  }
  if (rotary.scaling == RopeScaling::Llama3) {
    rotary.low_freq_factor = sub.number("low_freq_factor", 1.0);
    rotary.high_freq_factor = sub.number("high_freq_factor", 4.0);
    rotary.original_max_positions = sub.positive_int("original_max_position_embeddings", 8192);
    if (!(rotary.high_freq_factor > rotary.low_freq_factor) || !(rotary.low_freq_factor > 0))
      sub.fail("llama3 scaling needs 0 < low_freq_factor < high_freq_factor");
  }
  if (rotary.scaling == RopeScaling::Yarn) read_yarn(sub, rotary);
}

void check_rotary(const ConfigReader& reader, const ModelConfig& config, RotaryPart& rotary, double rotated_fraction) {
  if (!(rotary.theta > 1.0)) reader.fail("the rotary base (rope_theta) must be > 1, got " + std::to_string(rotary.theta));
  if (!(rotated_fraction > 0.0 && rotated_fraction <= 1.0))
    reader.fail("the rotated fraction of a head (rotary_pct) must be in (0, 1], got " + std::to_string(rotated_fraction));
  // Hugging Face truncates d_head × fraction to an integer; an odd width cannot be split in halves.
  rotary.dims = static_cast<int64_t>(static_cast<double>(config.d_head) * rotated_fraction);
  if (rotary.dims % 2 != 0 || rotary.dims == 0)
    reader.fail("rotary width " + std::to_string(rotary.dims) + " (head width " + std::to_string(config.d_head) +
                " × " + std::to_string(rotated_fraction) + ") must be even and positive");
}

namespace {

// Rotary settings, as transformers v4 writes them (rope_theta, rope_scaling; GPT-NeoX's rotary_pct and
// rotary_emb_base) or v5 (one rope_parameters object).
void parse_rotary(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config,
                  double rotated_fraction) {
  auto& rotary = config.rotary;
  const bool neox = config.family == ModelFamily::GptNeox;
  rotary.theta = neox ? reader.number("rotary_emb_base", reader.number("rope_theta", 10000.0))
                      : reader.number("rope_theta", 10000.0);
  const char* scaling_key = reader.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (reader.has(scaling_key)) read_rope_object(root.at(scaling_key), path + " (" + scaling_key + ")", rotary, rotated_fraction);
  check_rotary(reader, config, rotary, rotated_fraction);
}

}  // namespace

void parse_gpt2(const ConfigReader& reader, ModelConfig& config) {
  read_sizes(reader, {"n_layer", "n_head", "n_embd", "n_inner", true}, config);
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

void parse_bert(const json& root, const ConfigReader& reader, ModelConfig& config) {
  read_sizes(reader, {"num_hidden_layers", "num_attention_heads", "hidden_size", "intermediate_size", false,
                      "max_position_embeddings"},
             config);
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

// llama, mistral, qwen2 (modeling_llama.py and its copies) and gpt_neox (modeling_gpt_neox.py), as
// their config.json files are downloaded: pre-norm decoders with rotary positions; and what qwen3,
// gemma2, gemma3_text, phi3 and olmo2 share with llama (parse_decoder_family adds the rest).
void parse_rotary_decoder(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  const bool neox = config.family == ModelFamily::GptNeox;
  auto& decoder = config.decoder;
  read_sizes(reader, {"num_hidden_layers", "num_attention_heads", "hidden_size", "intermediate_size", false,
                      "max_position_embeddings", 2048},
             config);
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
  // Phi-3.5 and Phi-4-mini state their rotated fraction beside the rope settings (transformers v4).
  parse_rotary(root, reader, path, config,
               config.family == ModelFamily::Phi3 ? reader.number("partial_rotary_factor", 1.0) : 1.0);
  parse_decoder_family(root, reader, path, config);
}

// The key/value groups of a grouped-query model: stated per layer (a pruned model, "query_groups")
// or n_heads / kv_heads query heads for each of kv_heads key/value heads.
void set_query_groups(const json& root, const std::string& path, ModelConfig& config) {
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

}  // namespace config_parsing
}  // namespace aw
