// tests/support/random_translation.h — what the tests of path patching and edge attribution on
// translation models share: a random pre-norm (or post-norm) transformer_mt in float64 and its inputs.
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/translation.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw::test {

// Blocks enc 0, enc 1, dec 2, cross 3, dec 4, cross 5; 2 heads of width 4, d 8, 40 tokens. Every matrix
// from N(0, 0.5²), every vector (norm weights, biases) from N(1, 0.3²) — the norms away from 1, so that
// reading through the wrong one shows —, in float64 and eval mode.
inline std::shared_ptr<TranslationTransformerImpl> random_translation(uint64_t seed, const std::string& norm = "pre") {
  const auto config = parse_model_config({{"model_type", "transformer_mt"}, {"vocab_size", 40}, {"encoder_layers", 2},
                                          {"decoder_layers", 2}, {"n_heads", 2}, {"d_model", 8}, {"d_ff", 16},
                                          {"max_positions", 16}, {"norm", norm}, {"positions", "learned"},
                                          {"dropout", 0.0}},
                                         "random transformer_mt");
  torch::manual_seed(static_cast<int64_t>(seed));
  auto model = make_translation_transformer(config);
  {
    torch::NoGradGuard no_grad;
    for (auto& parameter : model->parameters()) {
      if (parameter.dim() == 2) parameter.normal_(0.0, 0.5);
      else parameter.normal_(1.0, 0.3);
    }
  }
  model->to(torch::kFloat64);
  model->eval();
  return model;
}

// A pair of sources and the target both runs read; answer token 4, foil 8.
inline PatchPair translation_pair(std::vector<int64_t> clean, std::vector<int64_t> corrupted, std::vector<int64_t> target) {
  PatchPair pair;
  pair.clean = std::move(clean), pair.corrupted = std::move(corrupted), pair.target = std::move(target);
  pair.answer = 4, pair.foil = 8;
  return pair;
}

// One source and target as a batch of one.
inline ModelInput translation_input(const std::vector<int64_t>& source, const std::vector<int64_t>& target) {
  ModelInput input;
  input.input_ids = torch::tensor(source, torch::kLong).unsqueeze(0);
  input.decoder_input_ids = torch::tensor(target, torch::kLong).unsqueeze(0);
  return input;
}

// The value at `point` of `block` in a forward of `input`, made without gradients (not in inference
// mode: the tests feed it to autograd).
inline torch::Tensor value_at(AttentionModel& model, const ModelInput& input, HookPoint point, int64_t block) {
  torch::Tensor value;
  ForwardOptions options;
  options.hooks.add(point, block, [&](const HookSite&, const torch::Tensor& x) { return value = x.clone(), torch::Tensor(); });
  torch::NoGradGuard no_gradients;
  model.forward(input, options);
  return value;
}

}  // namespace aw::test
