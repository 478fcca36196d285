// models/nn/transformer.h — the transformer shared by every family in this workbench: decoder LMs
// (transformer_lm, bet_sg, gpt2), the Bird-Eye Transformer BET(SF) (bird-eye reweighting and the
// diagonal-free mask), and the BERT encoder. Attention probabilities are always computed explicitly
// (masked scores → softmax) so they can be captured, gated and intervened on.
// Parameter names are the native checkpoint's tensor names ("layers.3.attn.q.weight").
#pragma once

#include "models/nn/model.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/normalization.h>

namespace aw {

// A linear map y = x Wᵀ + b whose parameters start uninitialised. LibTorch's Linear and Embedding
// fill every weight at random on construction, which loading then overwrites: ~1 s of wasted work
// for a GPT-2-small checkpoint. Fresh models are initialised once, by make_transformer.
class DenseImpl : public torch::nn::Module {
 public:
  DenseImpl(int64_t in, int64_t out, bool with_bias);
  torch::Tensor forward(const torch::Tensor& x) { return torch::linear(x, weight, bias); }
  torch::Tensor weight, bias;  // [out, in], [out] (bias undefined when with_bias is false)
};
TORCH_MODULE(Dense);

// An embedding table [rows, width], uninitialised for the same reason as Dense.
class LookupImpl : public torch::nn::Module {
 public:
  LookupImpl(int64_t rows, int64_t width);
  torch::Tensor forward(const torch::Tensor& ids) { return torch::embedding(weight, ids); }
  torch::Tensor weight;
};
TORCH_MODULE(Lookup);

// LayerNorm or RMSNorm over the last dimension (DecoderPart::norm), parameters "weight" and (LayerNorm
// only) "bias". RMSNorm works in float32 in a BF16 or F16 model, as Hugging Face's does.
class NormImpl : public torch::nn::Module {
 public:
  NormImpl(int64_t width, double eps, NormKind kind);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;

 private:
  double eps_;
  NormKind kind_;
};
TORCH_MODULE(Norm);

// Rotary positions for `length` tokens: cos and sin [length, dims] in `float_options`, each frequency
// twice (Hugging Face's rotate_half layout), with the config's scaling applied to the frequencies.
std::pair<torch::Tensor, torch::Tensor> rotary_tables(const RotaryPart& rotary, int64_t length,
                                                      const torch::TensorOptions& float_options);
// t [B, H, n, dh] with its first cos.size(-1) channels turned by the rotary angles (the rest pass).
torch::Tensor apply_rotary(const torch::Tensor& t, const torch::Tensor& cos, const torch::Tensor& sin);

// Masks and interventions that every layer of one forward shares, built once per forward.
struct AttentionContext {
  torch::Tensor blocked;          // bool [B|1, 1, n, n]: true where a score is set to −∞ (causal, padding)
  torch::Tensor blocked_bias;     // the same as an additive bias in the model's dtype: 0, or −∞ where blocked
  torch::Tensor diagonal_blocked; // bool [n, n]: the diagonal except row 0 (DiagFreeMask), or undefined
  torch::Tensor diagonal_scale;   // float [n, n]: 1 off the diagonal, the factor on it, or undefined
  torch::Tensor reweighted_blocked;  // bool [n, n]: BET(SF)'s own diagonal-free mask, or undefined
  torch::Tensor rotary_cos, rotary_sin;  // [n, dims] rotary tables (rotary_tables), or undefined

  // After a gated block whose k settings split the B rows into k·B (setting-major), the per-row
  // padding masks follow: repeated to `rows` when they are per row and have fewer.
  void follow_rows(int64_t rows);
};

// The masks of one attention kind: `queries` × `keys` scores, causal or not, with the keys' padding
// (key_padding [B, keys], 1 = token; undefined = none), the diagonal intervention and BET(SF)'s own
// diagonal-free mask (`reweighted_diagonal_mask`); `float_options` is the model's dtype and device.
// A causal `window` > 0 also blocks keys `window` or more positions before the query (Mistral).
AttentionContext attention_context(int64_t queries, int64_t keys, bool causal, const torch::Tensor& key_padding,
                                   const DiagonalIntervention& diagonal, bool reweighted_diagonal_mask,
                                   const torch::TensorOptions& float_options, int64_t window = 0);

// A residual for its sublayer's output: repeated k times (setting-major) when k gate settings split
// the residual's B rows into k·B inside the sublayer.
torch::Tensor residual_rows(const torch::Tensor& residual, const torch::Tensor& sublayer);

// What attention (and a block) gives back. `probabilities` [B, H, n, n] is defined only when the
// caller asked for it: otherwise it is released as soon as the context is mixed.
struct AttentionOutput {
  torch::Tensor output;         // [k·B, n, d]
  torch::Tensor probabilities;  // [B, H, n, n] or undefined
};
struct BlockOutput {
  torch::Tensor hidden;         // [k·B, n, d]
  torch::Tensor probabilities;  // [B, H, n, n] or undefined
};

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  // `query_groups`: the query heads of each key/value head (grouped-query attention, DecoderPart);
  // empty = every head has its own key and value.
  MultiHeadAttentionImpl(const ModelConfig& config, int64_t heads, const std::vector<int64_t>& query_groups = {});

  // x [B, n, d]; gates [k·B|1, H] or undefined. The output is [k·B, n, d]: with k > 1 the context
  // is repeated k times (setting-major) just before the gates, so the settings share the attention
  // itself. The probabilities come back when `return_probabilities` is true. With `memory`
  // [B, m, d] defined this is cross-attention: keys and values come from the memory, the
  // probabilities are [B, H, n, m]; the memory may have fewer rows than x (B of its k·B rows, when
  // gate settings split the rows earlier): its keys and values are computed once and repeated.
  AttentionOutput forward(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& gates,
                          bool return_probabilities, const torch::Tensor& memory = {});

  // The probabilities alone [B, H, n, keys], as forward() computes them (values are made only where
  // the scores need them: BET(SF)).
  torch::Tensor probabilities(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& memory = {});

  int64_t heads() const { return heads_; }

  Dense q{nullptr}, k{nullptr}, v{nullptr}, o{nullptr};
  torch::Tensor bird_eye;  // [H, 2·dh]: w of R = sigmoid(wᵀ[H_j, K_j]) per head (BET(SF) only)
  torch::Tensor kv_index;  // [H] long: the key/value head of each query head (a buffer; grouped-query only)

 private:
  struct Weighed {
    torch::Tensor probabilities;  // (B, H, n, keys)
    torch::Tensor value;          // (B, H, keys, dh); undefined unless asked for
  };
  // The one computation of the probabilities behind forward() and probabilities().
  Weighed weigh(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& memory, bool with_value);

  int64_t heads_;
  int64_t d_head_;
  double dropout_;
};
TORCH_MODULE(MultiHeadAttention);

class FeedForwardImpl : public torch::nn::Module {
 public:
  FeedForwardImpl(const ModelConfig& config);
  torch::Tensor forward(const torch::Tensor& x);
  Dense fc1{nullptr}, fc2{nullptr};
  Dense gate{nullptr};  // SwiGLU only: fc2(act(gate(x)) ⊙ fc1(x)), fc1 being Hugging Face's up_proj

 private:
  Activation activation_;
};
TORCH_MODULE(FeedForward);

class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(const ModelConfig& config, int64_t layer);
  BlockOutput forward(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& gates,
                      bool return_probabilities);
  // Its attention's probabilities for x, the state entering the block, without the rest of the block.
  torch::Tensor probabilities(const torch::Tensor& x, const AttentionContext& context);

  Norm ln_1{nullptr}, ln_2{nullptr};
  MultiHeadAttention attn{nullptr};
  FeedForward mlp{nullptr};

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
  torch::Tensor layer_attention(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                                const ForwardOptions& options) override;
  bool splits_rows_at_gates() const override { return true; }

  Lookup tok_emb{nullptr}, pos_emb{nullptr}, type_emb{nullptr};
  Norm emb_ln{nullptr}, ln_f{nullptr};
  torch::nn::ModuleList layers{nullptr};
  Dense lm_head{nullptr}, pooler{nullptr}, classifier{nullptr};

 private:
  torch::Tensor layer_gates(const torch::Tensor& gates, int64_t layer, int64_t batch) const;
  // output() in the model's own dtype.
  torch::Tensor reduced_output(const torch::Tensor& hidden, const ModelInput& input);
  // The masks and the diagonal intervention every layer of a forward over `length` tokens applies.
  AttentionContext layers_context(int64_t length, const ModelInput& input, const ForwardOptions& options) const;

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
