// analysis/circuits/token_attribution.h — which input tokens an output draws on, read through the
// attention: the last layer's attention itself, attention rollout and attention flow (Abnar & Zuidema
// 2020) and gradient-weighted rollout (Chefer et al. 2021). Definitions: docs/circuits.md
// "Attribution through attention". Dimension letters: L layers, H heads, n positions.
#pragma once

#include "models/nn/model.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

enum class AttributionMethod { Attention, Rollout, Flow, Gradient };
const std::vector<std::string>& attribution_method_names();  // "attention", "rollout", "flow", "gradient"

// What is explained: the logit of `target` (a token, or a classifier's class) at `position` (a
// language model), or the classifier's output, which reads the positions by `readout`.
struct AttributionOutput {
  int64_t position = -1;  // a language model's position; −1 for a classifier
  int64_t target = -1;    // −1: the model's top prediction there (read in the attribution's own forward)
};

// Â_l = ½ mean_h A_l + ½ I with each row divided by its sum (rows of a model with learned sinks sum
// to less than 1): pattern [H, n, n] → [n, n], float64.
torch::Tensor residual_attention(const torch::Tensor& pattern);
// readout [n] · Â_L ⋯ Â_1 (each layer's pattern [H, n, n], first layer first).
torch::Tensor attention_rollout(const std::vector<torch::Tensor>& patterns, const torch::Tensor& readout);
// For each position j, the maximum flow from the readout (a source feeding position i of the last
// layer with capacity readout[i]) to position j of the input, through edges (l, i) → (l − 1, j) of
// capacity Â_l[i, j]: [n] float64.
torch::Tensor attention_flow(const std::vector<torch::Tensor>& patterns, const torch::Tensor& readout);
// readout · R with R = I, then R ← R + Ā_l R for l = 1 … L, Ā_l = mean_h max(∇A_l ⊙ A_l, 0) (the
// gradients of the explained logit with respect to each layer's probabilities, [H, n, n]).
torch::Tensor gradient_rollout(const std::vector<torch::Tensor>& patterns, const std::vector<torch::Tensor>& gradients,
                               const torch::Tensor& readout);

// Every layer's probabilities [H, n, n] and the gradient of the explained logit with respect to them
// (the total derivative: through the later layers' attention too), float64, from one forward and one
// backward of `input` (a batch of one). `logit` and `probability` receive the explained output's.
struct PatternGradients {
  std::vector<torch::Tensor> patterns, gradients;
  int64_t target = 0;  // the explained token or class (output.target, or the top prediction)
  double logit = 0, probability = 0;
};
PatternGradients pattern_gradients(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                   const ForwardOptions& options);

struct TokenAttribution {
  torch::Tensor readout;                 // [n] float64: the output's weight on each position of the last layer
  // By AttributionMethod: [n] float64 (flow: undefined unless asked); a translation model's [n + m],
  // the source's tokens then the target's (translation_attribution.h).
  std::vector<torch::Tensor> scores;
  int64_t target = 0;                    // the explained token or class
  double logit = 0, probability = 0;     // of the target at the output
};

// One forward and one backward of `input` (a batch of one) with every layer's probabilities and their
// gradients read at the pattern hook (`options` may carry head gates); attention flow as well when
// `with_flow`. Throws aw::Error for an output the model does not have.
TokenAttribution attribute_tokens(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                  bool with_flow, const ForwardOptions& options);

// The output's readout over n positions: one-hot at the position (a language model), the first
// position or the mean of the unmasked ones (a classifier's pooling).
torch::Tensor output_readout(const ModelConfig& config, const AttributionOutput& output, const ModelInput& input);

// The target's probability at the output for each row of `masks` [k, n] (1 = kept, 0 = removed: the
// position is masked as a key in every layer, as padding is), the input repeated k times. A translation
// model's masks are over the source (its encoder's keys and the cross-attention's).
std::vector<double> masked_probabilities(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                         const torch::Tensor& masks, const ForwardOptions& options);

}  // namespace aw
