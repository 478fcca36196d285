// models/nn/model_config_decoders.cpp — what qwen3, gemma2, gemma3_text, phi3 and olmo2 add to the
// llama-style decoder parse_rotary_decoder has read, as their config.json files are downloaded
// (transformers v4 or v5 keys; docs/checkpoint-format.md).
#include "models/nn/model_config_parsers.h"

#include <cmath>

namespace aw {
namespace config_parsing {
namespace {

}  // namespace

// Each layer sliding or full: "layer_types" as stated (v5 and recent v4 files), or every
// `pattern`-th layer full and the others sliding, as older files imply.
std::vector<bool> sliding_layer_types(const ConfigReader& reader, const ModelConfig& config, int64_t pattern) {
  std::vector<bool> sliding;
  if (reader.has("layer_types")) {
    for (const auto& type : reader.string_list("layer_types")) {
      if (type != "sliding_attention" && type != "full_attention")
        reader.fail("layer type '" + type + "' is not supported (supported: sliding_attention, full_attention)");
      sliding.push_back(type == "sliding_attention");
    }
    if (static_cast<int64_t>(sliding.size()) != config.n_blocks)
      reader.fail("layer_types has " + std::to_string(sliding.size()) + " entries for " +
                  std::to_string(config.n_blocks) + " layers");
    return sliding;
  }
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) sliding.push_back((layer + 1) % pattern != 0);
  return sliding;
}

namespace {

// Gemma 3's two rope settings: v5's rope_parameters per layer type, or v4's rope_theta and
// rope_scaling (global layers) and rope_local_base_freq (sliding layers, never scaled).
void parse_gemma3_rotary(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  auto& global = config.rotary;
  auto& local = config.decoder.sliding_rotary;
  global = RotaryPart{}, local = RotaryPart{};
  double global_fraction = 1.0, local_fraction = 1.0;
  global.theta = reader.number("rope_theta", 1000000.0);
  local.theta = reader.number("rope_local_base_freq", 10000.0);
  const bool per_type = reader.has("rope_parameters") && root.at("rope_parameters").is_object() &&
                        (root.at("rope_parameters").contains("full_attention") ||
                         root.at("rope_parameters").contains("sliding_attention"));
  if (per_type) {
    const auto& parameters = root.at("rope_parameters");
    if (parameters.contains("full_attention"))
      read_rope_object(parameters.at("full_attention"), path + " (rope_parameters.full_attention)", global, global_fraction);
    if (parameters.contains("sliding_attention"))
      read_rope_object(parameters.at("sliding_attention"), path + " (rope_parameters.sliding_attention)", local,
                       local_fraction);
  } else {
    const char* scaling_key = reader.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
    if (reader.has(scaling_key)) read_rope_object(root.at(scaling_key), path + " (" + scaling_key + ")", global, global_fraction);
  }
  check_rotary(reader, config, global, global_fraction);
  check_rotary(reader, config, local, local_fraction);
}

void parse_gemma(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  auto& decoder = config.decoder;
  const bool gemma3 = config.family == ModelFamily::Gemma3Text;
  if (reader.boolean("use_bidirectional_attention", false))
    reader.fail("use_bidirectional_attention true is not supported (a bidirectional Gemma is not a language model)");
  config.tie_embeddings = reader.boolean("tie_word_embeddings", true);
  config.activation = parse_activation(reader, reader.has("hidden_activation") ? "hidden_activation" : "hidden_act",
                                       "gelu_pytorch_tanh");
  decoder.norm = NormKind::RmsNormPlusOne;
  decoder.post_norms = true;
  decoder.embedding_scale = std::sqrt(static_cast<double>(config.d_model));
  decoder.query_scale = reader.number("query_pre_attn_scalar", static_cast<double>(config.d_head));
  if (!(decoder.query_scale > 0)) reader.fail("query_pre_attn_scalar must be > 0");
  // Gemma 3's classes read attn_logit_softcapping and never apply it (their attention is not handed
  // the cap): neither does this one, so a Gemma 3 file that states a cap computes what they compute.
  decoder.attention_softcap = gemma3 ? 0.0 : reader.number("attn_logit_softcapping", 0.0);
  decoder.final_softcap = reader.number("final_logit_softcapping", 0.0);
  if (decoder.attention_softcap < 0 || decoder.final_softcap < 0) reader.fail("soft-capping values must be ≥ 0");
  decoder.sliding_window = reader.non_negative_int("sliding_window", 4096);
  // Gemma 2: every other layer sliding, the first one included; Gemma 3: sliding_window_pattern − 1
  // sliding layers, then a global one.
  decoder.sliding_layers =
      sliding_layer_types(reader, config, gemma3 ? reader.positive_int("sliding_window_pattern", 6) : 2);
  if (gemma3) {
    decoder.qk_norm = QkNorm::PerHead;
    parse_gemma3_rotary(root, reader, path, config);
  }
}

}  // namespace

void parse_decoder_family(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  auto& decoder = config.decoder;
  switch (config.family) {
    case ModelFamily::Qwen3:
      decoder.qk_norm = QkNorm::PerHead;
      if (reader.boolean("use_sliding_window", false))
        reader.fail("use_sliding_window true is not supported for qwen3 (its window starts at max_window_layers)");
      break;
    case ModelFamily::Gemma2:
    case ModelFamily::Gemma3Text: parse_gemma(root, reader, path, config); break;
    case ModelFamily::Phi3:
      decoder.qkv_bias = decoder.out_bias = decoder.mlp_bias = false;  // Phi-3 has none
      decoder.sliding_window = reader.non_negative_int("sliding_window", 0);
      break;
    case ModelFamily::Olmo2:
      decoder.qk_norm = QkNorm::Whole;
      decoder.pre_norms = false;
      decoder.post_norms = true;
      break;
    case ModelFamily::Mixtral:
    case ModelFamily::Qwen3Moe:
    case ModelFamily::Olmoe:
    case ModelFamily::GptOss: parse_moe_family(root, reader, path, config); break;
    default: break;  // llama, mistral, qwen2: nothing more
  }
}

}  // namespace config_parsing
}  // namespace aw
