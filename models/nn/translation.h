// models/nn/translation.h — the encoder–decoder Transformer of the translation models: the native
// transformer_mt (pre/post-LN, learned or sinusoidal positions, shared or separate vocabularies, tied
// output, optionally BET(SF) and the diagonal-free mask in the decoder's self-attention) and the
// Hugging Face Marian and BART layouts. It reuses the shared transformer's attention, feed-forward and
// encoder block (transformer.h); every attention probability is explicit, so it can be captured and
// gated.
//
// Attention blocks are numbered in the order the forward runs them (model_config.h,
// TranslationPart): Le encoder blocks, then decoder layer j's self-attention (Le + 2j) and
// cross-attention (Le + 2j + 1). Gates are [blocks, H_max] or [B, blocks, H_max]; captured attention
// is one tensor per block: [B, H, n, n] (encoder), [B, H, m, m] (decoder), [B, H, m, n] (cross),
// n source and m target tokens.
//
// The staged forward (AttentionModel::run_layers) passes between stages: before encoder layer l,
// the encoder state [B, n, d]; before decoder layer j, the encoder's output and the decoder state
// side by side along the sequence, [B, n + m, d], so a sweep that changes only decoder or cross heads
// computes the encoder once; after the last block, the decoder state [B, m, d].
#pragma once

#include "models/nn/transformer.h"

#include <torch/nn/modules/container/modulelist.h>

#include <memory>

namespace aw {

struct DecoderBlockOutput {
  torch::Tensor hidden;  // [B, m, d]
};

class DecoderBlockImpl : public torch::nn::Module {
 public:
  // `decoder` is the decoder side's config (d_head, d_ff, bird_eye of the decoder).
  DecoderBlockImpl(const ModelConfig& decoder, int64_t self_heads, int64_t cross_heads);
  // The contexts' hooks are the self- and the cross-attention block's (gates and capture among them);
  // the layer's MLP and output are read at the cross block's, after the cross-attention.
  DecoderBlockOutput forward(const torch::Tensor& input, const torch::Tensor& memory, const AttentionContext& self_context,
                             const AttentionContext& cross_context);

  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr}, ln_3{nullptr};  // self, cross, feed-forward
  MultiHeadAttention self_attn{nullptr}, cross_attn{nullptr};
  FeedForward mlp{nullptr};

 private:
  NormPlacement norm_;
  double dropout_;
};
TORCH_MODULE(DecoderBlock);

class TranslationTransformerImpl : public torch::nn::Module, public SequenceToSequenceModel {
 public:
  // `initialise` false leaves the weights uninitialised, for a checkpoint to fill.
  explicit TranslationTransformerImpl(ModelConfig config, bool initialise = true);

  const ModelConfig& config() const override { return config_; }
  torch::nn::Module& module() override { return *this; }
  // Gates of k·B rows split the B rows at the call's first gated block (model.h). The encoder's
  // output stays B rows: the cross-attention computes its keys and values once for all settings.
  bool splits_rows_at_gates() const override { return true; }

  // input: input_ids = source [B, n] (+ attention_mask), decoder_input_ids = target [B, m].
  // logits [B, m, V]: position i predicts decoder_input_ids[i + 1].
  ForwardResult forward(const ModelInput& input, const ForwardOptions& options = {}) override;
  torch::Tensor embed(const ModelInput& input) override;  // the source embeddings [B, n, d]
  LayersResult run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_block, int64_t end_block,
                          const ForwardOptions& options) override;
  torch::Tensor output(const torch::Tensor& hidden, const ModelInput& input) override;  // [B, m, V]
  torch::Tensor hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& hooks) override;
  // Every point of the shared transformer in each block (docs/hooks.md "Translation models"):
  // enc.blocks.l.…, dec.blocks.l.… (the self-attention, then the layer's MLP and output),
  // cross.blocks.l.… (the cross-attention and the residual after it), enc.final_norm and dec.final_norm
  // where the model has them, and logits.
  std::vector<HookPoint> hook_points() const override;
  std::vector<HookAddress> hook_addresses() const override;

  LayersResult encode(const ModelInput& input, const ForwardOptions& options = {}) override;
  ForwardResult decode(const torch::Tensor& memory, const ModelInput& input,
                       const ForwardOptions& options = {}) override;

  Lookup tok_emb{nullptr}, tgt_emb{nullptr}, enc_pos{nullptr}, dec_pos{nullptr};
  torch::nn::LayerNorm enc_emb_ln{nullptr}, dec_emb_ln{nullptr}, enc_ln_f{nullptr}, dec_ln_f{nullptr};
  torch::nn::ModuleList encoder{nullptr}, decoder{nullptr};
  Dense lm_head{nullptr};
  torch::Tensor final_logits_bias;  // [1, V_target] (Marian, BART; as they store it) or undefined

 private:
  torch::Tensor embed_target(const torch::Tensor& ids);
  // The encoder's last state through its final norm (where it has one): the memory the
  // cross-attention reads; `hooks` at enc.final_norm.
  torch::Tensor encoder_output(const torch::Tensor& hidden, const Hooks& hooks);
  torch::Tensor checked_gates(const ForwardOptions& options, int64_t rows, const torch::Tensor& like) const;
  // Each block's gates [k·B|1, H] of checked gates for a call from `first_block` on `rows` rows (empty:
  // none); a decoder self-attention below a first cross block keeps the settings' common B rows.
  std::vector<torch::Tensor> call_gates(const torch::Tensor& gates, int64_t first_block, int64_t rows) const;
  torch::Tensor run_encoder(torch::Tensor hidden, const ModelInput& input, int64_t first, int64_t end,
                            const Hooks& hooks, const ForwardOptions& options, AttentionSink& sink);
  // Decoder layers from the one `first_block` (a decoder or cross block) belongs to up to end_layer.
  torch::Tensor run_decoder(const torch::Tensor& memory, torch::Tensor target, const ModelInput& input,
                            int64_t first_block, int64_t end_layer, const std::vector<torch::Tensor>& gates,
                            const Hooks& hooks, const ForwardOptions& options, AttentionSink& sink);
  int64_t decoder_stage(int64_t block) const;  // the decoder layer a stage boundary at `block` stands before
  const torch::Tensor& target_table() const;
  double embedding_scale() const;

  ModelConfig config_;
  torch::Tensor sinusoid_;  // [max_positions, d] when positions are sinusoidal (a buffer, not saved)
};

std::shared_ptr<TranslationTransformerImpl> make_translation_transformer(const ModelConfig& config,
                                                                         bool initialise = true);

}  // namespace aw
