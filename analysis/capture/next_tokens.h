// analysis/capture/next_tokens.h — a language model's next-token logits for one encoded text, whole or
// as the K best tokens after each position (`attend --logits`).
#pragma once

#include "models/nn/model.h"
#include "models/text/tokenizer.h"

#include <torch/types.h>

#include <cstdint>

namespace aw {

// The logits [n, V] (float32, CPU) of `encoding` through `model` (inference mode, nothing captured).
torch::Tensor next_token_logits(AttentionModel& model, const Encoding& encoding);

struct NextTokens {
  torch::Tensor ids;     // [n, K] int64: after position i, the K best next tokens, best first
  torch::Tensor logits;  // [n, K] float32: their logits
};

// The K best next tokens after every position of `logits` [n, V]; throws aw::Error for K outside
// 1 … V.
NextTokens top_next_tokens(const torch::Tensor& logits, int64_t k);

}  // namespace aw
