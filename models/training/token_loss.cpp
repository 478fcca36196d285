// models/training/token_loss.cpp — see token_loss.h.
#include "models/training/token_loss.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {
namespace {

constexpr int64_t kCpuLogitsPerChunk = int64_t{1} << 21;   // 8 MB of float: in L3, next to the weights
constexpr int64_t kGpuLogitsPerChunk = int64_t{1} << 26;   // 256 MB: large enough to fill the device
constexpr int64_t kMinPositionsPerChunk = 256;             // below this the matmul re-packs V × d too often

// The positions that predict a token, flattened: (1, P, d), a batch of one for output().
torch::Tensor predicting_positions(const torch::Tensor& hidden) {
  const int64_t length = hidden.size(1);
  return hidden.narrow(1, 0, length - 1).reshape({1, -1, hidden.size(2)});
}

// The token each of those positions predicts: (P, 1).
torch::Tensor next_tokens(const ModelInput& input, const torch::Device& device) {
  const auto& ids = input.predicted_ids();
  const int64_t length = ids.size(1);
  return ids.narrow(1, 1, length - 1).reshape({-1, 1}).to(device);
}

int64_t chunk_size(AttentionModel& model, const torch::Device& device, int64_t requested) {
  const auto& config = model.config();
  const int64_t vocabulary = config.is_translation() ? config.translation.target_vocab_size : config.vocab_size;
  return requested > 0 ? requested : default_positions_per_chunk(vocabulary, device);
}

// Logits of one chunk of predicting positions as (size, V), in float unless the model is float64.
torch::Tensor chunk_logits(AttentionModel& model, const torch::Tensor& positions, const ModelInput& input) {
  auto logits = model.output(positions, input).squeeze(0);                                  // (size, V)
  return logits.scalar_type() == torch::kFloat64 ? logits : logits.to(torch::kFloat32);
}

}  // namespace

int64_t default_positions_per_chunk(int64_t vocabulary, const torch::Device& device) {
  const int64_t logits = device.is_cuda() ? kGpuLogitsPerChunk : kCpuLogitsPerChunk;
  return std::max(kMinPositionsPerChunk, logits / std::max<int64_t>(1, vocabulary));
}

torch::Tensor predicted_token_mask(const ModelInput& input, const torch::Device& device, torch::ScalarType dtype) {
  const auto& mask = input.predicted_mask();
  const auto& ids = input.predicted_ids();
  const int64_t rows = ids.size(0), length = ids.size(1);
  return mask.defined() ? mask.narrow(1, 1, length - 1).to(device, dtype)
                        : torch::ones({rows, length - 1}, torch::dtype(dtype).device(device));
}

torch::Tensor next_token_losses(AttentionModel& model, const torch::Tensor& hidden, const ModelInput& input,
                                int64_t positions_per_chunk) {
  const auto positions = predicting_positions(hidden);                                      // (1, P, d)
  const auto targets = next_tokens(input, hidden.device());                                 // (P, 1)
  const int64_t total = positions.size(1);
  const int64_t chunk = chunk_size(model, hidden.device(), positions_per_chunk);
  torch::Tensor losses;                                                                      // (P)
  for (int64_t start = 0; start < total; start += chunk) {
    const int64_t size = std::min(chunk, total - start);
    const auto logits = chunk_logits(model, positions.narrow(1, start, size), input);       // (size, V)
    const auto picked = logits.gather(-1, targets.narrow(0, start, size)).squeeze(-1);
    const auto chunk_losses = torch::logsumexp(logits, -1) - picked;                        // (size)
    if (!losses.defined()) losses = torch::empty({total}, chunk_losses.options());
    losses.narrow(0, start, size).copy_(chunk_losses);
  }
  if (!losses.defined()) losses = torch::zeros({0}, hidden.options().dtype(torch::kFloat32));  // nothing predicted
  return losses.view({hidden.size(0), hidden.size(1) - 1});
}

namespace {

// Σ w·loss over the predicting positions and ∂/∂hidden, chunk by chunk. With label smoothing ε the loss
// of a position is (1 − ε)·(−log p_target) + ε/V · Σ_j (−log p_j) = lse − (1 − ε)·z_target − ε/V · Σ_j z_j,
// as torch's cross_entropy defines it, and its gradient over the logits is
// w·(softmax − (1 − ε)·one-hot − ε/V).
// `into_parameters` also accumulates the output layer's parameter gradients (training); otherwise only
// the gradient with respect to the positions is taken and no .grad is touched (head importance).
WeightedLoss chunked_loss_and_gradient(AttentionModel& model, const torch::Tensor& hidden, const torch::Tensor& weights,
                                       const ModelInput& input, double label_smoothing, bool into_parameters,
                                       int64_t positions_per_chunk) {
  const auto positions = predicting_positions(hidden.detach());                             // (1, P, d)
  const auto targets = next_tokens(input, hidden.device());                                 // (P, 1)
  const auto flat_weights = weights.reshape({-1, 1});                                       // (P, 1)
  const int64_t total = positions.size(1), width = hidden.size(2);
  const int64_t chunk = chunk_size(model, hidden.device(), positions_per_chunk);
  auto gradient = torch::zeros_like(positions);                                             // (1, P, d)
  auto loss = torch::zeros({}, torch::dtype(torch::kFloat64).device(hidden.device()));
  for (int64_t start = 0; start < total; start += chunk) {
    const int64_t size = std::min(chunk, total - start);
    const auto leaf = positions.narrow(1, start, size).detach().requires_grad_(true);       // (1, size, d)
    const auto logits = chunk_logits(model, leaf, input);                                   // (size, V)
    const auto values = logits.detach();
    const auto target = targets.narrow(0, start, size);
    const auto weight = flat_weights.narrow(0, start, size).to(values.dtype());             // (size, 1)
    // One exp pass gives both the log-sum-exp and the softmax: e = exp(z − max), Σe, p = e / Σe.
    const auto maximum = std::get<0>(values.max(-1, true));                                 // (size, 1)
    auto exponentials = (values - maximum).exp_();                                          // (size, V)
    const auto total_exp = exponentials.sum(-1, true);                                      // (size, 1)
    const auto picked = values.gather(-1, target);                                          // (size, 1)
    const double vocabulary = static_cast<double>(values.size(-1));
    auto chunk_losses = maximum + total_exp.log() - picked;                                 // (size, 1)
    if (label_smoothing > 0)
      chunk_losses = chunk_losses + label_smoothing * (picked - values.sum(-1, true) / vocabulary);
    loss += (chunk_losses * weight).sum().to(torch::kFloat64);
    // ∂loss/∂z = (softmax(z) − (1 − ε)·one-hot(target) − ε/V) · w, written over the exponentials.
    auto logits_gradient = exponentials.mul_(weight / total_exp);
    if (label_smoothing > 0) logits_gradient.sub_(weight * (label_smoothing / vocabulary));
    logits_gradient.scatter_add_(-1, target, -(1.0 - label_smoothing) * weight);
    torch::Tensor leaf_gradient;
    if (into_parameters) {
      torch::autograd::backward({logits}, {logits_gradient});
      leaf_gradient = leaf.grad();
    } else {
      leaf_gradient = torch::autograd::grad({logits}, {leaf}, {logits_gradient}).front();
    }
    gradient.narrow(1, start, size).copy_(leaf_gradient);
  }
  auto hidden_gradient = torch::zeros_like(hidden);                                          // (R, n, d)
  hidden_gradient.narrow(1, 0, hidden.size(1) - 1).copy_(gradient.view({hidden.size(0), hidden.size(1) - 1, width}));
  return {loss, hidden_gradient};
}

}  // namespace

WeightedLoss next_token_loss_and_gradient(AttentionModel& model, const torch::Tensor& hidden,
                                          const torch::Tensor& weights, const ModelInput& input,
                                          int64_t positions_per_chunk) {
  return chunked_loss_and_gradient(model, hidden, weights, input, 0.0, false, positions_per_chunk);
}

WeightedLoss backward_next_token_loss(AttentionModel& model, const torch::Tensor& hidden, const torch::Tensor& weights,
                                      const ModelInput& input, double label_smoothing, int64_t positions_per_chunk) {
  return chunked_loss_and_gradient(model, hidden, weights, input, label_smoothing, true, positions_per_chunk);
}

}  // namespace aw
