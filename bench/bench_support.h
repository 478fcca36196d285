// bench/bench_support.h — what the benchmarks share: wall time since a point, the matmul rate a
// FLOP floor is computed with, a GPT-2-small-sized checkpoint and Llama layouts written at random,
// and random clean/corrupted pairs for the patching benches.
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"

#include <benchmark/benchmark.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace aw::bench {

// `count` pairs of `length` random ids below `vocabulary` (seeded): the corrupted prompt differs at
// position 3, answer and foil random.
inline std::vector<PatchPair> random_pairs(int64_t count, int64_t length, int64_t vocabulary) {
  torch::manual_seed(1);
  std::vector<PatchPair> made;
  for (int64_t p = 0; p < count; ++p) {
    PatchPair pair;
    const auto ids = torch::randint(1, vocabulary, {length + 3}, torch::kLong);
    for (int64_t i = 0; i < length; ++i) pair.clean.push_back(ids[i].item<int64_t>());
    pair.corrupted = pair.clean;
    pair.corrupted[3] = ids[length].item<int64_t>();
    pair.answer = ids[length + 1].item<int64_t>();
    pair.foil = ids[length + 2].item<int64_t>();
    made.push_back(pair);
  }
  return made;
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A 1024² float32 product's rate (FLOP/s). Measured again next to every timed sweep, so a machine
// whose speed drifts (shared cores) is compared with itself.
inline double matmul_rate() {
  c10::InferenceMode inference;
  auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
  torch::matmul(a, b);
  const auto start = std::chrono::steady_clock::now();
  const int repeats = 20;
  for (int i = 0; i < repeats; ++i) benchmark::DoNotOptimize(torch::matmul(a, b));
  return repeats * 2.0 * 1024 * 1024 * 1024 / seconds_since(start);
}

// A GPT-2-small-sized native checkpoint: 12 layers × 12 heads, d 768, d_ff 3,072, vocabulary
// 50,257 (word tokens "t1" … "t50256"), 1,024 positions, random weights, F32 (~500 MB). Written once
// into the temporary folder and reused by later runs.
inline const std::string& gpt2_small_dir() {
  static const std::string dir = [] {
    const auto path = (std::filesystem::temp_directory_path() / "aw-bench-gpt2-small").string();
    const nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", 50257}, {"n_layers", 12},
                                 {"n_heads", 12}, {"d_model", 768}, {"d_ff", 3072}, {"max_positions", 1024},
                                 {"activation", "gelu_new"}, {"dropout", 0.0}};
    if (!std::filesystem::exists(std::filesystem::path(path) / "model.safetensors")) {
      auto model = aw::create_model(aw::parse_model_config(json, "bench config"));
      std::vector<std::string> vocabulary = {"<unk>"};
      for (int i = 1; i < 50257; ++i) vocabulary.push_back("t" + std::to_string(i));
      aw::save_native_checkpoint(path, *model, vocabulary);
    }
    return path;
  }();
  return dir;
}

// A Llama layout: layers, query and key-value heads of head_dim, width, MLP, vocabulary.
struct LlamaLayout {
  int64_t layers, heads, kv_heads, head_dim, d, ff, vocab;
};
// Llama-3.2-1B's sizes (1.24 B parameters, tied output).
constexpr LlamaLayout kLlama1b{16, 32, 8, 64, 2048, 8192, 128256};
// Llama-3.1-8B's sizes (its output matrix tied here: 7.5 B parameters, 15.0 GB in BF16).
constexpr LlamaLayout kLlama8b{32, 32, 8, 128, 4096, 14336, 128256};

// A Hugging Face llama folder of `layout` with random BF16 weights (N(0, 0.02), norms 1) as two
// safetensors shards and their index, Llama 3's rope scaling and 131,072 positions, and any llama3
// tokenizer.json (the benches feed ids). Written once into the temporary folder as `name`.
inline std::string llama_layout_dir(const std::string& name, const LlamaLayout& layout) {
  namespace fs = std::filesystem;
  const auto path = (fs::temp_directory_path() / name).string();
  if (fs::exists(fs::path(path) / "model.safetensors.index.json")) return path;
  fs::create_directories(path);
  const nlohmann::json config = {
      {"model_type", "llama"}, {"vocab_size", layout.vocab}, {"hidden_size", layout.d},
      {"intermediate_size", layout.ff}, {"num_hidden_layers", layout.layers}, {"num_attention_heads", layout.heads},
      {"num_key_value_heads", layout.kv_heads}, {"head_dim", layout.head_dim}, {"max_position_embeddings", 131072},
      {"rms_norm_eps", 1e-5}, {"tie_word_embeddings", true}, {"torch_dtype", "bfloat16"}, {"rope_theta", 500000.0},
      {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0},
                        {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}}}};
  std::ofstream(fs::path(path) / "config.json") << config.dump(2);
  fs::copy_file(fs::path(AW_SOURCE_DIR) / "tests/fixtures/hf_tokenizers/llama3.tokenizer.json",
                fs::path(path) / "tokenizer.json", fs::copy_options::overwrite_existing);
  torch::manual_seed(1);
  // Drawn on a GPU where there is one: the CPU's generator is serial, 30 s for an 8B layout's weights.
  const auto device = torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  auto normal = [&](std::vector<int64_t> shape) {
    return (torch::randn(shape, torch::TensorOptions().device(device)) * 0.02).to(torch::kCPU, torch::kBFloat16);
  };
  std::vector<std::pair<std::string, torch::Tensor>> shards[2];
  nlohmann::json weight_map;
  auto add = [&](int shard, const std::string& tensor, torch::Tensor value) {
    shards[shard].emplace_back(tensor, std::move(value));
    weight_map[tensor] = "model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors";
  };
  const auto& l = layout;
  add(0, "model.embed_tokens.weight", normal({l.vocab, l.d}));
  for (int64_t layer = 0; layer < l.layers; ++layer) {
    const int shard = layer < l.layers / 2 ? 0 : 1;
    const auto prefix = "model.layers." + std::to_string(layer) + ".";
    add(shard, prefix + "input_layernorm.weight", torch::ones({l.d}, torch::kBFloat16));
    add(shard, prefix + "post_attention_layernorm.weight", torch::ones({l.d}, torch::kBFloat16));
    add(shard, prefix + "self_attn.q_proj.weight", normal({l.heads * l.head_dim, l.d}));
    add(shard, prefix + "self_attn.k_proj.weight", normal({l.kv_heads * l.head_dim, l.d}));
    add(shard, prefix + "self_attn.v_proj.weight", normal({l.kv_heads * l.head_dim, l.d}));
    add(shard, prefix + "self_attn.o_proj.weight", normal({l.d, l.heads * l.head_dim}));
    add(shard, prefix + "mlp.gate_proj.weight", normal({l.ff, l.d}));
    add(shard, prefix + "mlp.up_proj.weight", normal({l.ff, l.d}));
    add(shard, prefix + "mlp.down_proj.weight", normal({l.d, l.ff}));
  }
  add(1, "model.norm.weight", torch::ones({l.d}, torch::kBFloat16));
  for (int shard = 0; shard < 2; ++shard)
    aw::write_safetensors((fs::path(path) / ("model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors")).string(),
                          shards[shard], {{"format", "pt"}});
  std::ofstream(fs::path(path) / "model.safetensors.index.json") << nlohmann::json{{"weight_map", weight_map}}.dump(1);
  return path;
}

}  // namespace aw::bench
