// models/nn/model_config_parse.cpp — config.json in: what each family is (family_traits), the parser
// model_type chooses (model_config_native.cpp, model_config_hugging_face.cpp,
// model_config_translation.cpp), and what every family shares after it: head widths,
// heads_per_layer (left by real pruning), key/value groups, and the checks on the result.
#include "models/nn/model_config_parsers.h"

#include <filesystem>

namespace aw {
namespace config_parsing {

Activation parse_activation(const ConfigReader& reader, const std::string& key, const std::string& fallback) {
  const auto name = reader.choice(key, {"relu", "gelu", "gelu_new", "gelu_pytorch_tanh", "swish", "silu"}, fallback);
  if (name == "relu") return Activation::Relu;
  if (name == "swish" || name == "silu") return Activation::Silu;
  if (name == "gelu") return Activation::Gelu;
  return Activation::GeluTanh;
}

void read_sizes(const ConfigReader& reader, const SizeKeys& keys, ModelConfig& config) {
  config.vocab_size = reader.positive_int("vocab_size");
  config.n_blocks = reader.layer_count(keys.layers);
  config.n_heads = reader.positive_int(keys.heads);
  config.d_model = reader.positive_int(keys.width);
  config.d_ff = keys.ffn_defaults ? reader.positive_int(keys.ffn, 4 * config.d_model) : reader.positive_int(keys.ffn);
  if (keys.positions)
    config.max_positions = keys.positions_default > 0 ? reader.positive_int(keys.positions, keys.positions_default)
                                                      : reader.positive_int(keys.positions);
}

void read_native_layout(const ConfigReader& reader, const NativeLayoutDefaults& defaults, ModelConfig& config) {
  config.norm = reader.choice("norm", {"pre", "post"}, defaults.norm) == "pre" ? NormPlacement::Pre : NormPlacement::Post;
  config.positions = reader.choice("positions", {"learned", "sinusoidal"}, defaults.positions) == "learned"
                         ? PositionKind::Learned
                         : PositionKind::Sinusoidal;
  config.tie_embeddings = reader.boolean("tie_embeddings", true);
  config.activation = parse_activation(reader, "activation", defaults.activation);
  config.layer_norm_eps = reader.number("layer_norm_eps", 1e-5);
  config.dropout = reader.number("dropout", 0.1);
}

}  // namespace config_parsing

using namespace config_parsing;

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
    case ModelFamily::GptNeox:
    case ModelFamily::Qwen3:
    case ModelFamily::Gemma2:
    case ModelFamily::Gemma3Text:
    case ModelFamily::Phi3: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, true};
    // OLMo 2 normalises every head's query (key) together: without a head, the others' norms change.
    case ModelFamily::Olmo2: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, false};
    // Mixtures of experts: their attention prunes as Llama's, OLMoE's whole-width query and key norms
    // aside (as OLMo 2), and gpt-oss's sinks are saved per head by no pruned-model writer here.
    case ModelFamily::Mixtral:
    case ModelFamily::Qwen3Moe: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, true};
    case ModelFamily::Olmoe:
    case ModelFamily::GptOss: return {Network::Transformer, CheckpointFormat::HuggingFace, TrainedAs::None, false};
  }
  return {};
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
    for (const auto& entry : EnumNames<ModelFamily>::table) known += (known.empty() ? "" : ", ") + std::string(entry.name);
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
    case ModelFamily::GptNeox:
    case ModelFamily::Qwen3:
    case ModelFamily::Gemma2:
    case ModelFamily::Gemma3Text:
    case ModelFamily::Phi3:
    case ModelFamily::Olmo2:
    case ModelFamily::Mixtral:
    case ModelFamily::Qwen3Moe:
    case ModelFamily::Olmoe:
    case ModelFamily::GptOss: parse_rotary_decoder(json, reader, path, config); break;
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

}  // namespace aw
