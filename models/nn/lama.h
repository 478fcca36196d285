// models/nn/lama.h — LAMA (Mehta, Rangwala, Ramakrishnan): low-rank multi-head attention over a
// bidirectional GRU, for document classification (docs/lama.md).
//
//   H = biGRU(E x)              annotations h_t ∈ R^2h              (B, n, 2h)
//   u_t = tanh(W_w h_t + b_w)                                       (B, n, 2h)
//   c  = learned vector ("LAMA"), or the mean of the document's word embeddings, mapped to 2h by a
//        learned linear layer when E ≠ 2h ("LAMA+ctx")             (B, 2h)
//   f_t = P̃ᵀc ⊙ Q̃ᵀu_t  (rank 1 per head: f_tj = cᵀ p_j q_jᵀ u_t)    (B, n, m)
//   A  = softmax over words of  ℓ2-normalise over heads of tanh(f)   (B, m, n), padding masked
//   S  = A H, each head's row scaled by its gate                     (B, m, 2h)
//   logits = MLP(flatten S)                                          (B, C)
//
// In the AttentionModel contract LAMA is one layer of m heads with a single query (the global
// context): captured attention is [B, m, 1, n]; gates are [1, m] or [B, 1, m]. embed() returns the
// gate-independent part (the GRU annotations, plus the word embeddings when the context is their
// mean), run_layers() the attention and S, output() the MLP, so analyses that cache the layers
// below an ablated one skip the GRU.
#pragma once

#include "models/nn/model.h"
#include "models/nn/recurrent_encoder.h"

#include <torch/nn/module.h>

namespace aw {

// The intermediate results of LAMA's attention for one batch.
struct LamaAttention {
  torch::Tensor context;    // c   (B, 2h)
  torch::Tensor scores;     // f   (B, n, m), before tanh
  torch::Tensor attention;  // A   (B, m, n), rows sum to 1 over the unpadded words
  torch::Tensor pooled;     // S   (B, m, 2h), gates applied
};

class LamaImpl : public torch::nn::Module, public AttentionModel {
 public:
  explicit LamaImpl(ModelConfig config);

  const ModelConfig& config() const override { return config_; }
  torch::nn::Module& module() override { return *this; }

  ForwardResult forward(const ModelInput& input, const ForwardOptions& options = {}) override;
  // (B, n, 2h) annotations, or (B, n, 2h + E) annotations ‖ embeddings for the "mean" context.
  torch::Tensor embed(const ModelInput& input) override;
  // Layer 0 maps embed()'s output to S (B, m, 2h); an empty range returns `hidden` unchanged.
  LayersResult run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer, int64_t end_layer,
                          const ForwardOptions& options) override;
  torch::Tensor output(const torch::Tensor& hidden, const ModelInput& input) override;  // (B, C)
  torch::Tensor hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& hooks) override;
  // What LAMA has of the points (docs/hooks.md), in its one layer: blocks.0.attn_in (the annotations H,
  // [B, n, 2h]), attn.scores (the ℓ2-normalised tanh(f), masked: what the softmax sees) and attn.pattern
  // (A), both [B, m, 1, n] (one query, the context, per head), attn.z (S, gated, [B, m, 1, 2h]); logits.
  std::vector<HookPoint> hook_points() const override;

  // The attention from embed()'s output; gates [B|1, m] or undefined; mask [B, n] or undefined; `hooks`
  // at the points above.
  LamaAttention attend(const torch::Tensor& embedded, const torch::Tensor& mask, const torch::Tensor& gates,
                       const LayerHooks& hooks = {});

  WordGru encoder{nullptr};
  Dense word_proj{nullptr};     // W_w, b_w
  Dense context_proj{nullptr};  // "mean" context with E ≠ 2h only
  torch::Tensor context;        // [2h], "learned" context only
  torch::Tensor p, q;           // P̃, Q̃ [2h, m]
  ClassifierMlp mlp{nullptr};   // m·2h → classifier_hidden → C

 private:
  ModelConfig config_;
};
TORCH_MODULE(Lama);

// f = (c P̃) ⊙ (u Q̃): context (B, 2h), u (B, n, 2h), p and q (2h, m) → (B, n, m).
torch::Tensor low_rank_scores(const torch::Tensor& context, const torch::Tensor& u, const torch::Tensor& p,
                              const torch::Tensor& q);

// D_penal = ‖A Aᵀ − I‖²_F per document, mean over the batch; attention (B, m, n).
torch::Tensor penal_disagreement(const torch::Tensor& attention);
// D_emb = mean over pairs i ≠ j of cos(S_i, S_j) per document, mean over the batch; pooled (B, m, 2h).
// 0 for a single head.
torch::Tensor embedding_disagreement(const torch::Tensor& pooled);

// λ · D of the model's config.regularizer for a forward run with CaptureMode::Full, or an
// undefined tensor when the model has none (Regularizer::None, or not a LAMA model).
torch::Tensor classification_regularizer(const ModelConfig& config, const ForwardResult& result);

}  // namespace aw
