// analysis/logit_lens/vocabulary_reading.h — what the logit lens takes from one layer's logits over the
// vocabulary (the top tokens, the logsumexp, the scored token's logit and rank, the expectation under
// fixed weights), reduced a slice of the vocabulary at a time: each slice is read while it is in cache,
// and [P, V] is never held (AttentionModel::vocabulary_logits).
#pragma once

#include "models/nn/model.h"

#include <cstdint>

namespace aw {

struct VocabularyReading {
  torch::Tensor top_logits;  // (P, k) float32, descending
  torch::Tensor top_ids;     // (P, k) int64
  torch::Tensor log_sum;     // (P) logsumexp over the vocabulary
  torch::Tensor scored;      // (P) the scored token's logit
  torch::Tensor above;       // (P) int32: tokens other than the scored one with a larger logit
  torch::Tensor expected;    // (P) Σ_v weights[p, v] logit[p, v], when weights were given
};

// `scored` (P) the token each position is scored against (any valid id where there is none); `weights`
// (P, V) or undefined.
VocabularyReading read_vocabulary(const AttentionModel::VocabularyLogits& logits, const torch::Tensor& scored,
                                  int64_t k, const torch::Tensor& weights = {});

// Whole logits (P, V) as slices of themselves: the model's own output, which the lens keeps anyway.
AttentionModel::VocabularyLogits whole_logits(const torch::Tensor& logits);

}  // namespace aw
