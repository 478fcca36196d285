// models/training/token_loss.h — the next-token cross-entropy of a language model computed from its last
// hidden states, for perplexity (evaluation.h), the training step (trainer.h) and the analyses that need
// the loss of every token (gate sweeps) or its gradient (head importance); a translation model's from its
// decoder's. Dimension letters: R rows (windows × settings), n positions, d width, V vocabulary, P
// predicting positions (R·(n−1)).
//
// The output layer runs over chunks of positions, never over all of them at once: a chunk's
// [chunk, V] logits are still in cache when the log-sum-exp (and, for the gradient, the softmax)
// reads them, where the whole [P, V] tensor — hundreds of MB in a batched sweep — went through
// memory several times and cost as much as the output matmul itself. A language model's output
// layer (final norm, vocabulary projection) acts on each position alone, so any slice of positions
// may go through it.
#pragma once

#include "models/nn/model.h"

#include <torch/types.h>

#include <cstdint>

namespace aw {

// Positions per chunk when `positions_per_chunk` is 0: about 8 MB of float logits on the CPU (at
// least 256 positions, so the matmul stays efficient), about 256 MB on a GPU.
int64_t default_positions_per_chunk(int64_t vocabulary, const torch::Device& device);

// 1 for each token the batch predicts (input_ids[r, i + 1], or the decoder's), 0 for padding: (R, n−1) of
// `dtype` on `device`.
torch::Tensor predicted_token_mask(const ModelInput& input, const torch::Device& device, torch::ScalarType dtype);

// losses[r, i] = −log softmax(output(hidden[r, i]))[input_ids[r, i + 1]]: (R, n−1), float (or
// float64 for a float64 model), on the model's device. Padding targets get a loss too; the caller
// masks them. Needs no gradient (runs in whatever grad mode the caller is in).
torch::Tensor next_token_losses(AttentionModel& model, const torch::Tensor& hidden, const ModelInput& input,
                                int64_t positions_per_chunk = 0);

struct WeightedLoss {
  torch::Tensor loss;             // scalar: Σ weights[r, i] · losses[r, i]
  torch::Tensor hidden_gradient;  // (R, n, d): ∂loss/∂hidden (zero at each row's last position)
};

// The weighted loss and its gradient with respect to `hidden` (taken as a constant: the caller
// carries the gradient on, e.g. to the head gates with torch::autograd::grad(hidden, gates,
// hidden_gradient)). weights: (R, n−1). Per chunk the softmax gradient (softmax − one-hot) · w is
// formed directly from the one exp pass of the log-sum-exp, and only the output layer is
// differentiated by autograd.
WeightedLoss next_token_loss_and_gradient(AttentionModel& model, const torch::Tensor& hidden,
                                          const torch::Tensor& weights, const ModelInput& input,
                                          int64_t positions_per_chunk = 0);

// The same weighted loss, label-smoothed by ε = `label_smoothing` as torch's cross_entropy smooths it, for a
// training step: the output layer's parameter gradients are accumulated into their .grad chunk by chunk, and
// ∂loss/∂hidden comes back for the caller to back-propagate through the layers below. No [P, V] logits or
// their gradient are held at once.
WeightedLoss backward_next_token_loss(AttentionModel& model, const torch::Tensor& hidden, const torch::Tensor& weights,
                                      const ModelInput& input, double label_smoothing, int64_t positions_per_chunk = 0);

}  // namespace aw
