// models/nn/transformer.h — the transformer shared by every family in this workbench: decoder LMs
// (transformer_lm, bet_sg, gpt2), the Bird-Eye Transformer BET(SF) (bird-eye reweighting and the
// diagonal-free mask), and the BERT encoder. Attention probabilities are always computed explicitly
// (masked scores → softmax, in tiles of query rows: attention.h) so they can be captured, gated and
// intervened on.
// Parameter names are the native checkpoint's tensor names ("layers.3.attn.q.weight").
#pragma once

#include "models/nn/attention.h"
#include "models/nn/mixture_of_experts.h"
#include "models/nn/model.h"
#include "models/nn/modules.h"

#include <functional>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>

namespace aw {

// feed(x) for x (…, tokens, d), without gradients in tiles of tokens that keep `per_token_bytes` ×
// tokens within `memory_budget` (0 = all at once): feed gets each tile and its first token.
torch::Tensor in_token_tiles(const torch::Tensor& x, int64_t per_token_bytes, int64_t memory_budget,
                             const std::function<torch::Tensor(const torch::Tensor&, int64_t)>& feed);

class FeedForwardImpl : public torch::nn::Module {
 public:
  FeedForwardImpl(const ModelConfig& config);
  // x (…, tokens, d). Without gradients, rows of tokens at a time whose inner activations fit
  // `memory_budget` bytes (0 = all at once): a long text's [tokens, d_ff] is never whole. Each token's
  // output is its own; only the products' summation order may differ with their shapes (float rounding).
  // `hooks` sees the hidden activation (HookPoint::MlpAct, fc2's input), per tile of tokens when tiled.
  torch::Tensor forward(const torch::Tensor& x, int64_t memory_budget = 0, const LayerHooks& hooks = {});
  Dense fc1{nullptr}, fc2{nullptr};
  Dense gate{nullptr};  // SwiGLU only: fc2(act(gate(x)) ⊙ fc1(x)), fc1 being Hugging Face's up_proj

 private:
  torch::Tensor feed(const torch::Tensor& x, const LayerHooks& hooks, int64_t first_token);
  Activation activation_;
};
TORCH_MODULE(FeedForward);

class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(const ModelConfig& config, int64_t layer);
  // The context's hooks read and write the block's points (gates and capture among them).
  BlockOutput forward(const torch::Tensor& x, const AttentionContext& context);
  // Its attention's probabilities for x, the state entering the block, tile by tile, without the rest
  // of the block (the context's rows only).
  void probabilities(const torch::Tensor& x, const AttentionContext& context, const TileConsumer& tiles);

  Norm ln_1{nullptr}, ln_2{nullptr};  // before attention and the MLP (none: DecoderPart::pre_norms false)
  Norm ln_attn_out{nullptr}, ln_mlp_out{nullptr};  // on their outputs (DecoderPart::post_norms)
  MultiHeadAttention attn{nullptr};
  FeedForward mlp{nullptr};       // a dense layer's, or
  MixtureOfExperts moe{nullptr};  // a sparse layer's (MoePart::sparse_layer), also named "mlp"

 private:
  NormPlacement norm_;
  bool parallel_residual_;
  double dropout_;
};
TORCH_MODULE(TransformerBlock);

class TransformerImpl : public torch::nn::Module, public AttentionModel {
 public:
  // `initialise` false leaves the weights uninitialised, for a checkpoint to fill.
  explicit TransformerImpl(ModelConfig config, bool initialise = true);

  const ModelConfig& config() const override { return config_; }
  torch::nn::Module& module() override { return *this; }

  ForwardResult forward(const ModelInput& input, const ForwardOptions& options = {}) override;
  torch::Tensor embed(const ModelInput& input) override;
  LayersResult run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer, int64_t end_layer,
                          const ForwardOptions& options) override;
  torch::Tensor output(const torch::Tensor& hidden, const ModelInput& input) override;
  torch::Tensor hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& hooks) override;
  void layer_attention_tiles(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                             const ForwardOptions& options, const TileConsumer& tiles, int64_t first_row = 0,
                             int64_t end_row = -1) override;
  bool splits_rows_at_gates() const override { return true; }
  std::vector<HookPoint> hook_points() const override;
  std::vector<HookAddress> hook_addresses() const override;
  torch::Tensor head_writes(int64_t layer, const torch::Tensor& contexts) override;
  torch::Tensor direct_logits(const torch::Tensor& residual, const torch::Tensor& writes,
                              const torch::Tensor& tokens) override;
  torch::Tensor direct_vocabulary_logits(const torch::Tensor& residual, const torch::Tensor& writes) override;
  std::function<torch::Tensor(const torch::Tensor&)> logit_expectation(const torch::Tensor& weights) override;
  VocabularyLogits vocabulary_logits(const torch::Tensor& states) override;

  Lookup tok_emb{nullptr}, pos_emb{nullptr}, type_emb{nullptr};
  Norm emb_ln{nullptr}, ln_f{nullptr};
  torch::nn::ModuleList layers{nullptr};
  Dense lm_head{nullptr}, pooler{nullptr}, classifier{nullptr};

 private:
  // writes [B, K, d] through the final norm linearised at residual [B, d] (direct_logits' checks).
  torch::Tensor normed_writes(const torch::Tensor& residual, const torch::Tensor& writes);
  // Each layer's gates [k·B|1, H] of checked head gates [L, H_max] or [k·B, L, H_max] (none: empty).
  std::vector<torch::Tensor> layer_gates(const torch::Tensor& gates) const;
  // output() in the model's own dtype; `hooks` read or write its FinalNorm and Logits.
  torch::Tensor reduced_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks* hooks = nullptr);
  // The masks, positions and diagonal intervention the layers of a forward over `length` tokens
  // apply: the sliding layers' (DecoderPart::sliding_layer) or the others'.
  AttentionContext layers_context(int64_t length, const ModelInput& input, const ForwardOptions& options,
                                  bool sliding) const;

  ModelConfig config_;
  torch::Tensor sinusoid_;  // [max_positions, d] when positions are sinusoidal (a buffer, not saved)
};

// forward() of a model built in stages: output(run_layers(embed(x), x, 0, L).hidden, x), with the
// last stage's hidden state and the attention captured on the way.
ForwardResult forward_in_stages(AttentionModel& model, const ModelInput& input, const ForwardOptions& options);

// The activation a config names, applied to x.
torch::Tensor activate(const torch::Tensor& x, Activation activation);

// Vaswani et al.'s sinusoidal positions [positions, d] (float): interleaved, PE[p, 2i] = sin, PE[p, 2i+1]
// = cos, or with `split` all sines first, then all cosines (Marian's layout).
torch::Tensor sinusoid_table(int64_t positions, int64_t d_model, bool split = false);

// The model's weights freshly initialised: N(0, 0.02) for matrices, 0 for biases, 1/0 for LayerNorms
// (a parameter whose name contains "ln_" or "_ln").
void initialise_weights(torch::nn::Module& module);

// The intervention a config's diag_mode stands for (Reduced = ×0.2, Magnified = ×2.0, Mask).
DiagonalIntervention trained_diagonal(DiagMode diag_mode);

// A model for `config`: freshly initialised (weights N(0, 0.02), biases 0, LayerNorm 1/0), or with
// `initialise` false, uninitialised weights that a checkpoint will overwrite.
std::shared_ptr<TransformerImpl> make_transformer(const ModelConfig& config, bool initialise = true);

}  // namespace aw
