// tests/support/tiny_lama.h — a tiny LAMA classifier with lively weights (test_support.h's
// tiny_lama_config) and two documents to run it on, for the tests of the model, its training,
// evaluation and analyses.
#pragma once

#include "models/nn/lama.h"
#include "tests/support/test_support.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

namespace aw::test {

// Two documents of 7 and 5 words (the second padded).
inline ModelInput two_documents() {
  ModelInput input;
  input.input_ids = torch::tensor({3, 5, 7, 2, 9, 4, 11, 6, 8, 3, 12, 2, 0, 0}, torch::kLong).view({2, 7});
  input.attention_mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kLong).view({2, 7});
  return input;
}

// tiny_lama_config's model (`context`, E = `embedding_dim`) with weights drawn from N(0, 0.5²),
// far from uniform attention; in eval mode.
inline std::shared_ptr<LamaImpl> tiny_lama(const std::string& context = "mean", int64_t embedding_dim = 6,
                                           uint64_t seed = 5) {
  torch::manual_seed(seed);
  auto model = std::make_shared<LamaImpl>(tiny_lama_config("lama", context, embedding_dim));
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters()) parameter.normal_(0.0, 0.5);  // far from uniform attention
  model->eval();
  return model;
}

}  // namespace aw::test
