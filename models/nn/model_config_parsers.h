// models/nn/model_config_parsers.h — what the config.json parsers of models/nn/model_config_*.cpp share
// (internal to models/nn/): typed access to a config's keys with errors that name the file and the
// key, and one parser per group of families. Each family parser fills the sizes and parts of its
// families from their own keys; parse_model_config (model_config_parse.cpp) chooses the parser by
// model_type and then reads what every family shares (head widths, heads_per_layer, query_groups).
#pragma once

#include "models/errors.h"
#include "models/json_input.h"
#include "models/nn/model_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace config_parsing {

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

// An activation as the families name it (GPT-2's "gelu_new", Marian's "swish", Llama's "silu").
Activation parse_activation(const ConfigReader& reader, const std::string& key, const std::string& fallback);

// The keys a one-kind family names its sizes with: vocabulary, layers, heads, width, feed-forward
// width (defaulting to 4 × width where `ffn_defaults` says so) and positions (nullptr: the family
// reads them itself; `positions_default` > 0: absent means that many).
struct SizeKeys {
  const char* layers;
  const char* heads;
  const char* width;
  const char* ffn;
  bool ffn_defaults = false;
  const char* positions = nullptr;
  int64_t positions_default = 0;
};
void read_sizes(const ConfigReader& reader, const SizeKeys& keys, ModelConfig& config);

// The native layout keys (norm, positions, tie_embeddings, activation, layer_norm_eps, dropout) with
// a family's defaults: transformer_lm and its variants, encoder_classifier, transformer_mt.
struct NativeLayoutDefaults {
  const char* norm;       // pre or post
  const char* positions;  // learned or sinusoidal
  const char* activation;
};
void read_native_layout(const ConfigReader& reader, const NativeLayoutDefaults& defaults, ModelConfig& config);

// model_config_native.cpp: transformer_lm, bet_sf and bet_sg; encoder_classifier; lama, bigru_mean
// and bigru_max.
void parse_native(const ConfigReader& reader, ModelConfig& config);
void parse_encoder_classifier(const ConfigReader& reader, ModelConfig& config);
void parse_recurrent(const ConfigReader& reader, ModelConfig& config);

// model_config_hugging_face.cpp: gpt2, bert, and the rotary decoders (llama, mistral, qwen2, gpt_neox,
// and the common part of the families below) with their key/value groups.
void parse_gpt2(const ConfigReader& reader, ModelConfig& config);
void parse_bert(const json& root, const ConfigReader& reader, ModelConfig& config);
void parse_rotary_decoder(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config);
// One rope object (rope_parameters, rope_scaling, or one layer type's entry of Gemma 3's
// rope_parameters; `what` names it in errors) into `rotary` and the rotated fraction of a head.
void read_rope_object(const json& object, const std::string& what, RotaryPart& rotary, double& rotated_fraction);
// Checks the base and fraction and sets rotary.dims from config.d_head.
void check_rotary(const ConfigReader& reader, const ModelConfig& config, RotaryPart& rotary, double rotated_fraction);

// model_config_decoders.cpp: what qwen3, gemma2, gemma3_text, phi3 and olmo2 add to the rotary
// decoder parse_rotary_decoder reads (after it, on the same config).
void parse_decoder_family(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config);
// Each layer sliding (true) or full: layer_types as stated, or every `pattern`-th layer full.
std::vector<bool> sliding_layer_types(const ConfigReader& reader, const ModelConfig& config, int64_t pattern);
// model_config_moe.cpp: what mixtral, qwen3_moe, olmoe and gpt_oss add (called by parse_decoder_family).
void parse_moe_family(const json& root, const ConfigReader& reader, const std::string& path, ModelConfig& config);
void set_query_groups(const json& root, const std::string& path, ModelConfig& config);

// model_config_translation.cpp: transformer_mt, marian and bart.
void parse_transformer_mt(const ConfigReader& reader, ModelConfig& config);
void parse_hf_translation(const ConfigReader& reader, ModelConfig& config);

}  // namespace config_parsing
}  // namespace aw
