// tests/support/tiny_windows.h — the windows the analysis tests run tiny language models on, and a
// model's perplexity under one gate setting by a plain forward (what the gate sweeps must equal).
#pragma once

#include "models/nn/model.h"
#include "models/text/corpus.h"
#include "models/training/evaluation.h"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace aw::test {

// Windows of 16 and 7 tokens (the second padded), two batches.
inline std::vector<ModelInput> tiny_batches() {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 16 * 3 + 7; ++i) ids.push_back(2 + (i * 7) % 17);
  return make_window_batches(ids, 16, 2);
}

// The metric under one [L, H] gate setting by a plain full forward (no batching, no reuse).
inline double metric_with_gates(AttentionModel& model, const std::vector<ModelInput>& batches, const torch::Tensor& gates) {
  ForwardOptions options;
  options.head_gates = gates;
  return evaluate_perplexity(model, batches, options).metric;
}

}  // namespace aw::test
