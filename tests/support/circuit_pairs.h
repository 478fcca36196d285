// tests/support/circuit_pairs.h — the small model and clean/corrupted pairs the circuit tests share
// (path patching, edge attribution): 3 layers of 2 heads, width 8, and three pairs, two of length 5
// (one batch) and one of length 3 (a batch of its own).
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/nn/model_config.h"

#include <vector>

namespace aw::test {

inline ModelConfig small_circuit_config() {
  ModelConfig config;
  config.vocab_size = 20, config.n_blocks = 3, config.n_heads = 2, config.heads_per_block = {2, 2, 2};
  config.d_model = 8, config.d_head = 4, config.d_ff = 16, config.max_positions = 12, config.dropout = 0;
  return config;
}

inline std::vector<PatchPair> small_circuit_pairs() {
  return {{{3, 7, 1, 9, 4}, {3, 2, 1, 9, 4}, 5, 6, 1}, {{8, 1, 1, 2, 4}, {8, 1, 5, 2, 4}, 11, 12, 2},
          {{2, 3, 4}, {2, 9, 4}, 7, 8, 3}};
}

}  // namespace aw::test
