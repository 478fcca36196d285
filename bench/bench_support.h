// bench/bench_support.h — what the benchmarks with a FLOP floor share: wall time since a point,
// and the matmul rate the floor is computed with.
#pragma once

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <chrono>

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

}  // namespace aw::bench
