// bench/bench_support.h — what the benchmarks share: wall time since a point, the matmul rate a
// FLOP floor is computed with, and a GPT-2-small-sized checkpoint written at random.
#pragma once

#include "models/checkpoint/checkpoint.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace aw::bench {

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

}  // namespace aw::bench
