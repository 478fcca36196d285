// tests/support/random_transformer.h — what the transformer's tests share: a model of a config with
// its matrices drawn at a scale that makes attention far from uniform, a batch of random token ids
// or one text's, and forward options that capture every layer's attention whole.
#pragma once

#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace aw::test {

// The config's model with every matrix drawn from N(0, 0.4²) (seeded), in eval mode; with
// `every_parameter`, the norms' scales and the biases too (no parameter at its initial value).
inline std::shared_ptr<TransformerImpl> random_model(const ModelConfig& config, uint64_t seed = 3,
                                                     bool every_parameter = false) {
  torch::manual_seed(seed);
  auto model = make_transformer(config);
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->parameters())
    if (every_parameter || parameter.dim() >= 2) parameter.normal_(0.0, 0.4);
  model->eval();
  return model;
}

// One text's token ids as a batch of one.
inline ModelInput input_of(const std::vector<int64_t>& ids) {
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0);
  return input;
}

// [batch, length] token ids below 20 (the tiny configs' vocabulary), from torch's global generator.
inline ModelInput sample_input(int64_t batch = 2, int64_t length = 9) {
  ModelInput input;
  input.input_ids = torch::randint(0, 20, {batch, length}, torch::kLong);
  return input;
}

inline ForwardOptions capture_all() {
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  return options;
}

}  // namespace aw::test
