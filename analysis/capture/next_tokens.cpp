// analysis/capture/next_tokens.cpp — see next_tokens.h.
#include "analysis/capture/next_tokens.h"

#include "analysis/capture/attention_capture.h"
#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

torch::Tensor next_token_logits(AttentionModel& model, const Encoding& encoding) {
  c10::InferenceMode inference;
  model.module().eval();
  if (!model.config().is_language_model())
    throw Error("a " + model.config().family_name() + " model has no next-token logits");
  return model.forward(encoding_input(encoding), {}).logits.select(0, 0).to(torch::kCPU, torch::kFloat32);
}

NextTokens top_next_tokens(const torch::Tensor& logits, int64_t k) {
  if (k < 1 || k > logits.size(-1))
    throw Error("top-" + std::to_string(k) + " next tokens of a vocabulary of " + std::to_string(logits.size(-1)));
  const auto [values, ids] = logits.topk(k, -1);  // sorted, best first
  return {ids.contiguous(), values.contiguous()};
}

}  // namespace aw
