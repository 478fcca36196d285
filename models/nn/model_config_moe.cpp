// models/nn/model_config_moe.cpp — what the mixtures of experts (mixtral, qwen3_moe, olmoe, gpt_oss) add
// to the llama-style decoder parse_rotary_decoder has read: the router, the experts, and gpt-oss's
// attention (sinks, biases, alternating layers), as their config.json files are downloaded
// (docs/checkpoint-format.md "Mixtures of experts").
#include "models/nn/model_config_parsers.h"

namespace aw {
namespace config_parsing {
namespace {

// The experts and the router's top-k, checked against each other: a top-k beyond the experts, or no
// expert at all, is a config that cannot route.
// The expert count is num_experts (qwen3_moe and olmoe as the Hub has them) or num_local_experts
// (mixtral, gpt_oss, and qwen3_moe as transformers 5 saves it): whichever the file states.
void read_experts(const ConfigReader& reader, int64_t ffn, ModelConfig& config) {
  auto& moe = config.moe;
  const char* experts_key = reader.has("num_local_experts") ? "num_local_experts" : "num_experts";
  moe.experts = reader.positive_int(experts_key);
  moe.top_k = reader.positive_int("num_experts_per_tok");
  moe.expert_ffn = ffn;
  if (moe.top_k > moe.experts)
    reader.fail("num_experts_per_tok " + std::to_string(moe.top_k) + " is more than the " +
                std::to_string(moe.experts) + " experts (" + experts_key + ")");
}

// qwen3_moe: layer l is sparse unless listed in mlp_only_layers or (l + 1) is not a multiple of
// decoder_sparse_step (modeling_qwen3_moe.py).
void read_sparse_layers(const ConfigReader& reader, ModelConfig& config) {
  const int64_t step = reader.positive_int("decoder_sparse_step", 1);
  std::vector<bool> sparse(static_cast<size_t>(config.n_blocks), true);
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) sparse[layer] = (layer + 1) % step == 0;
  if (reader.has("mlp_only_layers"))
    for (auto layer : reader.int_list("mlp_only_layers")) {
      if (layer >= config.n_blocks)
        reader.fail("mlp_only_layers names layer " + std::to_string(layer) + " of " + std::to_string(config.n_blocks));
      sparse[layer] = false;
    }
  config.moe.sparse_layers = std::move(sparse);
}

// gpt-oss's expert weights: as stored, or in MXFP4 (quantization_config.quant_method "mxfp4", the
// form the Hub ships), dequantised on load. Other quantisations are refused by name.
void read_quantization(const json& root, const std::string& path, ModelConfig& config) {
  if (!root.contains("quantization_config") || root.at("quantization_config").is_null()) return;
  const auto& quantization = root.at("quantization_config");
  const ConfigReader sub(quantization, path + " (quantization_config)");
  if (!quantization.is_object()) sub.fail("must be an object, got " + json_excerpt(quantization));
  const auto method = sub.choice("quant_method", {"mxfp4", "fp8", "bitsandbytes", "gptq", "awq", "compressed-tensors"}, "mxfp4");
  if (method != "mxfp4") sub.fail("quant_method '" + method + "' is not supported (supported: mxfp4)");
  config.moe.mxfp4 = true;
}

void parse_gpt_oss(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  auto& decoder = config.decoder;
  auto& moe = config.moe;
  read_experts(reader, config.d_ff, config);
  moe.top_k_softmax = true;
  moe.router_bias = true;
  moe.packed_experts = true;
  moe.swiglu_alpha = reader.number("swiglu_alpha", 1.702);
  moe.swiglu_limit = reader.number("swiglu_limit", 7.0);
  if (!(moe.swiglu_limit > 0) || !(moe.swiglu_alpha > 0)) reader.fail("swiglu_alpha and swiglu_limit must be > 0");
  read_quantization(root, path, config);
  decoder.attention_sinks = true;
  decoder.qkv_bias = decoder.out_bias = reader.boolean("attention_bias", true);
  decoder.sliding_window = reader.non_negative_int("sliding_window", 128);
  decoder.sliding_layers = sliding_layer_types(reader, config, 2);
}

}  // namespace

void parse_moe_family(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config) {
  auto& decoder = config.decoder;
  auto& moe = config.moe;
  switch (config.family) {
    case ModelFamily::Mixtral:
      read_experts(reader, config.d_ff, config);
      moe.normalise_top_k = true;
      decoder.sliding_window = reader.non_negative_int("sliding_window", 0);
      break;
    case ModelFamily::Qwen3Moe:
      decoder.qk_norm = QkNorm::PerHead;
      if (reader.boolean("use_sliding_window", false))
        reader.fail("use_sliding_window true is not supported for qwen3_moe (its window starts at max_window_layers)");
      read_experts(reader, reader.positive_int("moe_intermediate_size"), config);
      moe.normalise_top_k = reader.boolean("norm_topk_prob", false);
      read_sparse_layers(reader, config);
      break;
    case ModelFamily::Olmoe:
      decoder.qk_norm = QkNorm::Whole;
      decoder.qkv_clip = reader.number("clip_qkv", 0.0);
      if (decoder.qkv_clip < 0) reader.fail("clip_qkv must be ≥ 0");
      read_experts(reader, config.d_ff, config);
      moe.normalise_top_k = reader.boolean("norm_topk_prob", false);
      break;
    case ModelFamily::GptOss: parse_gpt_oss(root, reader, path, config); break;
    default: break;
  }
}

}  // namespace config_parsing
}  // namespace aw
