// models/checkpoint/gguf_config.cpp — a GGUF file's metadata as the Hugging Face config.json it implies
// (see gguf_model.h), so that parse_model_config applies every family rule and check to it once. The keys
// are llama.cpp's ("{arch}.block_count", …), as its convert_hf_to_gguf.py writes them and its loader reads
// them; where llama.cpp fixes a setting in code rather than in the file (Gemma's sliding layers and query
// scale), the same rule is applied here.
#include "models/checkpoint/gguf_model.h"

#include "models/checkpoint/gguf_file.h"
#include "models/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace aw {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The architectures opened, and the model_type each becomes.
const std::vector<std::pair<std::string, std::string>> kArchitectures = {
    {"llama", "llama"}, {"qwen2", "qwen2"}, {"qwen3", "qwen3"}, {"gemma2", "gemma2"}, {"gemma3", "gemma3_text"}};

// The metadata of one architecture: "{arch}.<name>" keys, sizes checked as config.json's are.
class ArchitectureKeys {
 public:
  explicit ArchitectureKeys(const GgufFile& file) : file_(file), arch_(file.architecture()) {}

  std::string key(const std::string& name) const { return arch_ + "." + name; }
  bool has(const std::string& name) const { return file_.has(key(name)); }
  // A size: present, an integer, 1 … 2^24 (config.json's bound).
  int64_t size(const std::string& name) const {
    const auto value = file_.integer_value(key(name));
    if (value < 1 || value > (int64_t{1} << 24))
      fail_in_file(file_.path(), "metadata key '" + key(name) + "' is " + std::to_string(value) + ", not a size from 1 to 16777216");
    return value;
  }
  int64_t size_or(const std::string& name, int64_t fallback) const { return has(name) ? size(name) : fallback; }
  double number_or(const std::string& name, double fallback) const {
    if (!has(name)) return fallback;
    const auto& value = file_.value(key(name));
    return value.floats.empty() ? static_cast<double>(file_.integer_value(key(name))) : file_.float_value(key(name));
  }
  [[noreturn]] void fail(const std::string& what) const { fail_in_file(file_.path(), what); }

 private:
  const GgufFile& file_;
  std::string arch_;
};

// Llama 3.1's rope scaling, which llama.cpp's converter stores as rope_freqs.weight (one divisor per
// frequency: 1 for the fast ones, `factor` for the slow ones, a smooth blend between), read back as the
// rope_parameters that give the same divisors. Only three numbers matter to them — factor, and a, b in
// blend = a / wavelength − b — so low_freq_factor and high_freq_factor are stated for an original
// context of 8,192, which gives back Llama 3's own 1 and 4 where a and b are Llama 3's.
nlohmann::json llama3_rope_from_factors(const GgufFile& file, const std::vector<float>& factors, double theta,
                                        int64_t rotated) {
  const auto fail = [&](const std::string& why) {
    fail_in_file(file.path(), "tensor 'rope_freqs.weight' " + why);
  };
  if (static_cast<int64_t>(factors.size()) * 2 != rotated)
    fail("has " + std::to_string(factors.size()) + " values, but a head rotates " + std::to_string(rotated) +
         " channels (" + std::to_string(rotated / 2) + " frequencies)");
  const double factor = *std::max_element(factors.begin(), factors.end());
  if (!std::all_of(factors.begin(), factors.end(), [](float f) { return std::isfinite(f) && f >= 1.0f; }))
    fail("holds a divisor below 1 or not finite; Llama 3's scaling divides each frequency by 1 or more");
  if (factor == 1.0) return nlohmann::json();  // nothing scaled
  const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-6 * std::max(1.0, std::abs(y)); };
  std::vector<double> wavelength, blend;  // of the frequencies between the fast and the slow ones
  double last_fast = 0, first_slow = std::numeric_limits<double>::infinity();
  int stage = 0;  // fast (divisor 1), blended, slow (divisor `factor`): in this order, as wavelengths grow
  for (size_t i = 0; i < factors.size(); ++i) {
    const double length = 2 * kPi * std::pow(theta, 2.0 * static_cast<double>(i) / static_cast<double>(rotated));
    const int kind = close(factors[i], 1.0) ? 0 : close(factors[i], factor) ? 2 : 1;
    if (kind < stage) fail("does not follow Llama 3's scaling (divisors must grow from 1 to the factor with the wavelength)");
    stage = kind;
    if (kind == 0) last_fast = length;
    if (kind == 2) first_slow = std::min(first_slow, length);
    if (kind == 1) {
      wavelength.push_back(length);
      blend.push_back((1.0 / factors[i] - 1.0 / factor) / (1.0 - 1.0 / factor));
    }
  }
  // a / (b + 1) and a / b are the wavelengths where blending starts and ends.
  double a = 0, b = 0;
  if (wavelength.size() >= 2) {
    a = (blend.front() - blend.back()) / (1.0 / wavelength.front() - 1.0 / wavelength.back());
    b = a / wavelength.front() - blend.front();
    for (size_t i = 0; i < wavelength.size(); ++i)
      if (std::abs(a / wavelength[i] - b - blend[i]) > 1e-4) fail("does not follow Llama 3's scaling (its blended divisors fit no one ramp)");
  } else {
    // One blended frequency or none: any ramp through it (or in the gap) whose ends fall between the
    // neighbours gives the same divisors; a steep one keeps the ends close.
    const double centre = wavelength.empty() ? (std::isfinite(first_slow) ? std::sqrt(std::max(last_fast, 1.0) * first_slow)
                                                                          : 2 * std::max(last_fast, 1.0))
                                             : wavelength.front();
    const double s = wavelength.empty() ? 0.0 : blend.front();
    double steep = 1.0;
    if (last_fast > 0) steep = std::max(steep, (1 - s) * centre / (centre - last_fast));
    if (std::isfinite(first_slow)) steep = std::max(steep, (s + 1) * centre / (first_slow - centre));
    b = 2 * steep;
    a = (s + b) * centre;
  }
  if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b))
    fail("does not follow Llama 3's scaling (no ramp of positive wavelengths fits it)");
  constexpr double kOriginal = 8192;
  return {{"rope_type", "llama3"}, {"rope_theta", theta}, {"factor", factor},
          {"low_freq_factor", kOriginal * b / a}, {"high_freq_factor", kOriginal * (b + 1) / a},
          {"original_max_position_embeddings", static_cast<int64_t>(kOriginal)}};
}

// rope.scaling.* as a rope object ("default" when absent or none); other scalings refused by name.
nlohmann::json rope_scaling(const GgufFile& file, const ArchitectureKeys& keys, double theta) {
  nlohmann::json rope = {{"rope_type", "default"}, {"rope_theta", theta}};
  if (!keys.has("rope.scaling.type")) return rope;
  const auto type = file.string_value(keys.key("rope.scaling.type"));
  if (type == "none") return rope;
  if (type != "linear" && type != "yarn")
    keys.fail("metadata key '" + keys.key("rope.scaling.type") + "' is " + quoted_excerpt(type) +
              "; supported: none, linear, yarn");
  rope["rope_type"] = type;
  rope["factor"] = keys.number_or("rope.scaling.factor", 1.0);
  if (type == "yarn") {
    rope["original_max_position_embeddings"] = keys.size("rope.scaling.original_context_length");
    if (keys.has("rope.scaling.yarn_beta_fast")) rope["beta_fast"] = keys.number_or("rope.scaling.yarn_beta_fast", 32);
    if (keys.has("rope.scaling.yarn_beta_slow")) rope["beta_slow"] = keys.number_or("rope.scaling.yarn_beta_slow", 1);
    // llama.cpp multiplies its own attention factor by this one; transformers has no such setting.
    for (const char* name : {"rope.scaling.attn_factor", "rope.scaling.yarn_attn_factor"})
      if (keys.number_or(name, 1.0) != 1.0)
        keys.fail("metadata key '" + keys.key(name) + "' is " + std::to_string(keys.number_or(name, 1.0)) +
                  "; only 1 is supported (yarn's own attention factor)");
  }
  return rope;
}

bool holds(const GgufFile& file, const std::string& name) { return file.contains(name); }

}  // namespace

const char* gguf_supported_architectures() { return "llama, qwen2, qwen3, gemma2, gemma3"; }

void require_supported_architecture(const GgufFile& file) {
  const auto arch = file.architecture();
  for (const auto& [name, model_type] : kArchitectures)
    if (name == arch) return;
  fail_in_file(file.path(), "architecture " + quoted_excerpt(arch) + " is not supported (supported: " +
                                gguf_supported_architectures() + ")");
}

nlohmann::json gguf_config_json(const GgufFile& file) {
  require_supported_architecture(file);
  const auto arch = file.architecture();
  const ArchitectureKeys keys(file);
  std::string model_type;
  for (const auto& [name, type] : kArchitectures)
    if (name == arch) model_type = type;
  const bool llama = arch == "llama", gemma = arch == "gemma2" || arch == "gemma3";

  nlohmann::json config = {{"model_type", model_type}};
  const auto layers = keys.size("block_count");
  const auto width = keys.size("embedding_length");
  const auto heads = keys.size("attention.head_count");
  config["num_hidden_layers"] = layers;
  config["hidden_size"] = width;
  config["intermediate_size"] = keys.size("feed_forward_length");
  config["num_attention_heads"] = heads;
  config["num_key_value_heads"] = keys.size_or("attention.head_count_kv", heads);
  config["max_position_embeddings"] = keys.size_or("context_length", 2048);
  config["rms_norm_eps"] = keys.number_or("attention.layer_norm_rms_epsilon", 1e-6);
  if (!file.has("tokenizer.ggml.tokens"))
    fail_in_file(file.path(), "no tokenizer.ggml.tokens in its metadata (the vocabulary, which sizes the embedding)");
  config["vocab_size"] = static_cast<int64_t>(file.value("tokenizer.ggml.tokens").size());
  // llama.cpp writes output.weight only when the output is not the embedding.
  config["tie_word_embeddings"] = !holds(file, "output.weight");

  // The head width: key_length, else (llama) the rotated width, else width / heads; the rotation covers
  // the whole head in every architecture here.
  const bool stated = keys.has("attention.key_length") || (llama && keys.has("rope.dimension_count"));
  const int64_t head_width = keys.has("attention.key_length") ? keys.size("attention.key_length")
                             : stated                        ? keys.size("rope.dimension_count")
                                                             : width / heads;
  if (stated || width % heads != 0) config["head_dim"] = head_width;
  if (keys.size_or("attention.value_length", head_width) != head_width)
    keys.fail("metadata key '" + keys.key("attention.value_length") + "' is " +
              std::to_string(keys.size("attention.value_length")) + " but the key width is " + std::to_string(head_width) +
              "; heads with values of another width than their keys are not supported");
  if (keys.size_or("rope.dimension_count", head_width) != head_width)
    keys.fail("metadata key '" + keys.key("rope.dimension_count") + "' is " + std::to_string(keys.size("rope.dimension_count")) +
              " but a head is " + std::to_string(head_width) + " wide; rotating part of a head is not supported for " + arch);

  const double theta = keys.number_or("rope.freq_base", arch == "gemma3" ? 1000000.0 : 10000.0);
  auto rope = rope_scaling(file, keys, theta);
  if (llama && holds(file, "rope_freqs.weight")) {
    if (rope.at("rope_type") != "default")
      keys.fail("states rope.scaling.type " + rope.at("rope_type").get<std::string>() + " and rope_freqs.weight both");
    auto llama3 = llama3_rope_from_factors(file, file.dequantised("rope_freqs.weight"), theta, head_width);
    if (!llama3.is_null()) rope = std::move(llama3);
  }

  if (llama) {  // biases as the tensors show them (llama.cpp reads each one if present)
    config["attention_bias"] = holds(file, "blk.0.attn_q.bias");
    config["mlp_bias"] = holds(file, "blk.0.ffn_up.bias");
  }
  if (arch == "qwen3") config["attention_bias"] = holds(file, "blk.0.attn_q.bias");

  if (gemma) {
    config["hidden_activation"] = "gelu_pytorch_tanh";
    config["attention_bias"] = holds(file, "blk.0.attn_q.bias");
    config["sliding_window"] = keys.size_or("attention.sliding_window", 4096);
    // llama.cpp scales the scores by 1/√head_width, except for the 27B models (46 layers of Gemma 2,
    // 62 of Gemma 3), whose query_pre_attn_scalar is width / heads.
    const bool big = layers == (arch == "gemma2" ? 46 : 62);
    config["query_pre_attn_scalar"] = big ? width / heads : head_width;
    if (arch == "gemma2") {
      config["attn_logit_softcapping"] = keys.number_or("attn_logit_softcapping", 0.0);
      config["final_logit_softcapping"] = keys.number_or("final_logit_softcapping", 0.0);
      config["rope_theta"] = theta;
      if (rope.at("rope_type") != "default") config["rope_scaling"] = rope;
    } else {
      // Gemma 3: sliding layers at base 10,000 (llama.cpp's fixed default) unscaled, the others as stated.
      config["final_logit_softcapping"] = keys.number_or("final_logit_softcapping", 0.0);
      config["rope_parameters"] = {
          {"full_attention", rope},
          {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", keys.number_or("rope.freq_base_swa", 10000.0)}}}};
      // The pattern: stated as a period or per layer, else llama.cpp's 6.
      const auto pattern_key = keys.key("attention.sliding_window_pattern");
      nlohmann::json types = nlohmann::json::array();
      const auto& stated_pattern = file.has(pattern_key) ? &file.value(pattern_key) : nullptr;
      const bool per_layer = stated_pattern && stated_pattern->is_array();
      const int64_t period = stated_pattern && !per_layer ? keys.size("attention.sliding_window_pattern") : 6;
      std::vector<int64_t> flags;  // llama.cpp writes them as bools
      if (per_layer && stated_pattern->element_type == GgufValueType::Bool)
        flags.assign(stated_pattern->integers.begin(), stated_pattern->integers.end());
      else if (per_layer)
        flags = file.integer_array(pattern_key);
      if (per_layer && static_cast<int64_t>(flags.size()) != layers)
        keys.fail("metadata key '" + pattern_key + "' lists " + std::to_string(flags.size()) + " layers of " +
                  std::to_string(layers));
      for (int64_t layer = 0; layer < layers; ++layer) {
        const bool sliding = per_layer ? flags[static_cast<size_t>(layer)] != 0 : layer % period < period - 1;
        types.push_back(sliding ? "sliding_attention" : "full_attention");
      }
      config["layer_types"] = types;
    }
  } else {
    config["rope_parameters"] = rope;
  }
  for (const auto& [key, name] : {std::pair<const char*, const char*>{"tokenizer.ggml.bos_token_id", "bos_token_id"},
                                  {"tokenizer.ggml.eos_token_id", "eos_token_id"},
                                  {"tokenizer.ggml.padding_token_id", "pad_token_id"}})
    if (file.has(key)) config[name] = file.integer_value(key);
  return config;
}

}  // namespace aw
