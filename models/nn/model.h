// models/nn/model.h — the contract every model family implements (docs/architecture.md "The model contract").
// Dimension letters used across models/: B batch, n sequence length, L layers, H heads (of one
// layer), dh head width, d model width, V vocabulary, C classes. A "layer" of this contract (gates,
// capture, run_layers) is an attention block (ModelConfig::n_blocks): a one-kind model's layer, or
// one of a translation model's encoder, decoder-self and cross blocks (model_config.h, TranslationPart).
#pragma once

#include "models/nn/hooks.h"
#include "models/nn/model_config.h"

#include <torch/nn/module.h>
#include <torch/types.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace aw {

enum class CaptureMode {
  None,   // no attention leaves the forward
  Stats,  // each layer's probabilities go to the observer, nothing is kept
  Full,   // each layer's probabilities [B, H, n, n] are returned in ForwardResult::attention (and observed)
};

// An intervention on the dot-product diagonal (Bird-Eye Table 2, Figure 3), applied to the scaled
// scores before masking and softmax: "Reduced Diag" = scale(0.2), "Magnified Diag" = scale(2.0),
// DiagFreeMask = mask() (−∞ on the diagonal except row 0).
struct DiagonalIntervention {
  enum class Kind { None, Scale, Mask };
  Kind kind = Kind::None;
  double factor = 1.0;

  static DiagonalIntervention none() { return {}; }
  static DiagonalIntervention scale(double factor) { return {Kind::Scale, factor}; }
  static DiagonalIntervention mask() { return {Kind::Mask, 1.0}; }
};

// Sees one layer's attention probabilities [B, H, n, n] once the layer's last tile is computed (the
// tiles joined: memory for the whole matrix).
using AttentionObserver = std::function<void(int64_t layer, const torch::Tensor& probabilities)>;
// Sees each tile of a layer's attention as it is computed (models/nn/attention.h): `tile` is
// [B, H, rows, keys], the query rows first_row … first_row + rows − 1; a layer's tiles come in row
// order and cover its rows once. Nothing holds the layer's whole matrix.
using AttentionTileObserver = std::function<void(int64_t layer, int64_t first_row, const torch::Tensor& tile)>;
// What one attention module hands its tiles to.
using TileConsumer = std::function<void(int64_t first_row, const torch::Tensor& tile)>;

struct ForwardOptions {
  CaptureMode capture = CaptureMode::None;
  // 1 = head on, 0 = off, anything between scales the head's context (Michel's ξ_h).
  // [L, H_max] (same gates for the whole batch) or [B, L, H_max]; undefined = all on.
  // Where the model splits_rows_at_gates(), also [k·B, L, H_max]: see there.
  // May require grad: that is how head importance is computed.
  torch::Tensor head_gates;
  DiagonalIntervention diagonal;
  AttentionObserver observer;           // called per layer when capture is Stats or Full
  AttentionTileObserver tile_observer;  // called per tile when capture is Stats or Full
  // Bytes one tile of a layer's attention scores and probabilities may take (models/nn/attention.h);
  // 0 = the process's budget (memory_budget.h). The whole matrix is one tile when it fits.
  int64_t memory_budget = 0;
  // Keep the explicit attention (scores → softmax → mix) even where no probabilities are wanted and
  // this LibTorch has the fused kernel (models/nn/attention.h): a reference, and what tests compare.
  bool explicit_attention = false;
  // The layers whose probabilities capture computes (empty = every layer run); the others take the
  // fused kernel where available, as a forward without capture does.
  std::vector<bool> capture_layers;
  // Readers and writers at named points (hooks.h); a model calls those of the points it has
  // (AttentionModel::hook_points). The gates and the capture above reach the layers as hooks too
  // (forward_hooks.h): the gates first at z, the capture last at pattern.
  Hooks hooks;
};

// The one place a forward's attention goes, layer by layer: a model's attention hands each tile of
// a layer's probabilities to the consumer tiles(layer) gives (none for a layer not captured), and the model calls end_layer(layer)
// after the layer's last tile. Tiles go to the tile observer as they come; the observer (Stats) and
// the kept list (Full) get the layer's tiles joined. Layers compute probabilities only when
// wants_probabilities().
class AttentionSink {
 public:
  explicit AttentionSink(const ForwardOptions& options)
      : mode_(options.capture), observer_(options.observer), tile_observer_(options.tile_observer),
        layers_(options.capture_layers) {}

  bool wants_probabilities() const { return mode_ != CaptureMode::None; }
  // The consumer of `layer`'s tiles; empty when no probabilities are wanted.
  TileConsumer tiles(int64_t layer) {
    if (mode_ == CaptureMode::None) return {};
    if (!layers_.empty() && (layer >= static_cast<int64_t>(layers_.size()) || !layers_[layer])) return {};
    return [this, layer](int64_t first_row, const torch::Tensor& tile) {
      if (tile_observer_) tile_observer_(layer, first_row, tile);
      if (observer_ || mode_ == CaptureMode::Full) parts_[layer].push_back(tile);
    };
  }
  void end_layer(int64_t layer) {
    auto found = parts_.find(layer);
    if (found == parts_.end()) return;
    auto parts = std::move(found->second);
    parts_.erase(found);
    auto whole = parts.size() == 1 ? std::move(parts.front()) : torch::cat(parts, 2);
    if (observer_) observer_(layer, whole);
    if (mode_ == CaptureMode::Full) kept_.push_back(std::move(whole));
  }
  // A layer's probabilities made whole at once (a family that does not tile).
  void take(int64_t layer, const torch::Tensor& probabilities) {
    if (mode_ == CaptureMode::None) return;
    tiles(layer)(0, probabilities);
    end_layer(layer);
  }
  // The probabilities kept so far (Full), one per layer taken, in order; empty otherwise.
  std::vector<torch::Tensor> release() { return std::move(kept_); }

 private:
  CaptureMode mode_;
  const AttentionObserver& observer_;
  const AttentionTileObserver& tile_observer_;
  const std::vector<bool>& layers_;
  // The tiles of the layers in progress, when someone wants them whole (a decoder layer's self- and
  // cross-attention blocks both run before the layer ends).
  std::map<int64_t, std::vector<torch::Tensor>> parts_;
  std::vector<torch::Tensor> kept_;
};

struct ModelInput {
  torch::Tensor input_ids;       // [B, n] int64
  torch::Tensor attention_mask;  // [B, n], 1 = token, 0 = padding; undefined = no padding
  torch::Tensor token_type_ids;  // [B, n]; BERT only, undefined = all 0
  // Translation models only: input_ids is the source, and the decoder reads the target sequence
  // [B, m] = decoder start, the target's tokens, EOS (then padding). Its next-token losses are the
  // teacher-forced loss, exactly as a language model's are over input_ids.
  torch::Tensor decoder_input_ids;
  torch::Tensor decoder_attention_mask;  // [B, m], 1 = token, 0 = padding; undefined = no padding

  // The sequence whose next tokens the model predicts: the target (translation) or the input.
  const torch::Tensor& predicted_ids() const { return decoder_input_ids.defined() ? decoder_input_ids : input_ids; }
  const torch::Tensor& predicted_mask() const {
    return decoder_input_ids.defined() ? decoder_attention_mask : attention_mask;
  }

  // The same input on `device` (undefined tensors stay undefined).
  ModelInput to(const torch::Device& device) const {
    return map([&](const torch::Tensor& t) { return t.to(device); });
  }
  // The same input with every defined tensor t replaced by f(t) (undefined ones stay undefined).
  template <typename Function>
  ModelInput map(const Function& f) const {
    ModelInput mapped;
    const std::pair<const torch::Tensor*, torch::Tensor*> fields[] = {
        {&input_ids, &mapped.input_ids},
        {&attention_mask, &mapped.attention_mask},
        {&token_type_ids, &mapped.token_type_ids},
        {&decoder_input_ids, &mapped.decoder_input_ids},
        {&decoder_attention_mask, &mapped.decoder_attention_mask}};
    for (const auto& [from, to] : fields)
      if (from->defined()) *to = f(*from);
    return mapped;
  }
};

// What run_layers gives back: the hidden state after the last layer run, and the attention of the
// layers run, per layer [B, H, n, n], when capture == Full (empty otherwise).
struct LayersResult {
  torch::Tensor hidden;
  std::vector<torch::Tensor> attention;
};

struct ForwardResult {
  torch::Tensor logits;                   // [B, n, V] (language model) or [B, C] (classifier)
  torch::Tensor hidden;                   // [B, n, d] output of the last layer (before any final norm)
  std::vector<torch::Tensor> attention;   // per layer [B, H, n, n] when capture == Full
};

class SequenceToSequenceModel;

class AttentionModel {
 public:
  virtual ~AttentionModel() = default;

  virtual const ModelConfig& config() const = 0;
  // The LibTorch module: parameters, train()/eval(), to(device).
  virtual torch::nn::Module& module() = 0;

  virtual ForwardResult forward(const ModelInput& input, const ForwardOptions& options = {}) = 0;

  // The forward in three stages, so analyses can cache the hidden states below an ablated layer.
  // forward(x) == output(run_layers(embed(x), x, 0, L, options).hidden, x).
  virtual torch::Tensor embed(const ModelInput& input) = 0;                     // [B, n, d]
  virtual LayersResult run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer,
                                  int64_t end_layer, const ForwardOptions& options) = 0;
  virtual torch::Tensor output(const torch::Tensor& hidden, const ModelInput& input) = 0;  // logits
  // output() with `hooks` at its points (FinalNorm, Logits) where the model has them.
  virtual torch::Tensor hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& /*hooks*/) {
    return output(hidden, input);
  }

  // Layer `layer`'s attention probabilities for `hidden`, the state entering it, tile by tile to
  // `tiles` ([B, H, rows, keys] in row order): what run_layers(hidden, input, layer, layer + 1) with
  // capture gives for that layer, made again when a view shows it instead of kept for every layer —
  // only query rows [first_row, end_row) (end_row −1 = to the last), so a view of a region of a
  // long text computes that region's rows. The layer's own gates do not change its probabilities
  // (they scale its output), so options.head_gates is not read; options.memory_budget sizes the
  // tiles. This default runs the whole layer; a family may compute the asked rows alone.
  virtual void layer_attention_tiles(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                                     const ForwardOptions& options, const TileConsumer& tiles, int64_t first_row = 0,
                                     int64_t end_row = -1) {
    ForwardOptions asked;
    asked.capture = CaptureMode::Stats;
    asked.diagonal = options.diagonal;
    asked.memory_budget = options.memory_budget;
    asked.tile_observer = [&](int64_t, int64_t first, const torch::Tensor& tile) {
      const int64_t end = end_row < 0 ? first + tile.size(2) : std::min(end_row, first + tile.size(2));
      const int64_t from = std::max(first, first_row);
      if (from < end) tiles(from, tile.narrow(2, from - first, end - from));
    };
    run_layers(hidden, input, layer, layer + 1, asked);
  }
  // The same joined: [B, H, rows, keys] (memory for the whole matrix of those rows).
  torch::Tensor layer_attention(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                                const ForwardOptions& options, int64_t first_row = 0, int64_t end_row = -1) {
    std::vector<torch::Tensor> parts;
    layer_attention_tiles(hidden, input, layer, options,
                          [&](int64_t, const torch::Tensor& tile) { parts.push_back(tile); }, first_row, end_row);
    if (parts.empty()) return {};
    return parts.size() == 1 ? std::move(parts.front()) : torch::cat(parts, 2);
  }

  // Whether run_layers also takes gates of k·B rows for hidden states of B rows (k settings of the
  // same rows, setting-major): the rows are repeated where the first layer of the call applies its
  // gates, so the settings share everything before — that layer's attention included — and the
  // result has k·B rows. Gate sweeps use it when offered.
  virtual bool splits_rows_at_gates() const { return false; }

  // The points whose ForwardOptions::hooks forward() calls (run_layers the per-layer ones); empty
  // where a family has none yet (docs/hooks.md).
  virtual std::vector<HookPoint> hook_points() const { return {}; }
  // Every point at every place, named, in the order a forward passes them: by default one stack of
  // n_blocks blocks with hook_points() ("blocks.3.attn.z"); a translation model's by kind of block.
  virtual std::vector<HookAddress> hook_addresses() const {
    return stacked_addresses(hook_points(), config().n_blocks);
  }
  // Direct logit attribution (analysis/patching/): what each head of `layer` writes into the residual
  // stream, its slice of the output projection applied to its context (no bias): contexts [..., H, dh]
  // → [..., H, d]. And the logits of tokens [B, T] that writes [B, K, d] add through the final norm,
  // its scale taken from `residual` [B, d] (the last layer's output at that position, which the norm
  // divides by) and its bias left out: [B, K, T]. Throws aw::Error where the model has no such path
  // (no final norm before the unembedding); this default throws.
  virtual torch::Tensor head_writes(int64_t layer, const torch::Tensor& contexts);
  virtual torch::Tensor direct_logits(const torch::Tensor& residual, const torch::Tensor& writes,
                                      const torch::Tensor& tokens);
  // The same onto every token of the vocabulary: [B, K, V], the product in the unembedding's dtype (as
  // the model's own logits), returned widened (the logit lens's per-head view; a caller keeps B·K·V
  // within its memory).
  virtual torch::Tensor direct_vocabulary_logits(const torch::Tensor& residual, const torch::Tensor& writes);

  // Where the logits are linear in the final norm's output (logits = norm(h) · W_Uᵀ + b, in float32
  // or float64 weights), the expectation of a state's logits under fixed weights [P, V] — Σ_v w[p, v]
  // logit[p, v] — as norm(h[p]) · (w @ W_U)[p] + w[p] · b: one product of the vocabulary for the
  // weights, then a dot product of width d per state. Takes states [1, P, d], gives [P] in float32.
  // Empty where the model has no such form (a soft-cap, reduced-precision weights, no unembedding);
  // the logit lens's KL to the model's own output then reads every logit.
  virtual std::function<torch::Tensor(const torch::Tensor&)> logit_expectation(const torch::Tensor& /*weights*/) {
    return {};
  }
  // The logits of states [1, P, d] a slice of the vocabulary at a time, as output() computes them (the
  // final norm made once, Gemma 2's soft-cap applied), so that a consumer that reduces them — the logit
  // lens's top-k, logsumexp and ranks — never holds [P, V] and reads each slice while it is in cache.
  // slice(first, count) gives [P, count] in float32; own(tokens [P]) each position's logit of its own
  // token [P], rounded as a slice's are. Empty where the output is no unembedding (a classifier).
  struct VocabularyLogits {
    int64_t vocabulary = 0;
    std::function<torch::Tensor(int64_t first, int64_t count)> slice;
    std::function<torch::Tensor(const torch::Tensor& tokens)> own;
    explicit operator bool() const { return static_cast<bool>(slice); }
  };
  virtual VocabularyLogits vocabulary_logits(const torch::Tensor& /*states*/) { return {}; }

  // The model as an encoder–decoder (below) when it is one (the translation models), else nullptr.
  virtual SequenceToSequenceModel* sequence_to_sequence() { return nullptr; }
};

// A model that reads a source sequence and predicts a target sequence (the translation models): the
// encoder runs once per source, the decoder on its output as often as decoding needs. forward()
// reads input_ids as the source and decoder_input_ids as the target (ModelInput), and its blocks are
// numbered encoder first, then each decoder layer's self- and cross-attention (model_config.h,
// TranslationPart).
class SequenceToSequenceModel : public AttentionModel {
 public:
  SequenceToSequenceModel* sequence_to_sequence() override { return this; }

  // The encoder's output [B, n, d] (after its final norm), with the options' encoder gates and capture.
  virtual LayersResult encode(const ModelInput& input, const ForwardOptions& options = {}) = 0;
  // The decoder on `memory` = encode(input).hidden: logits [B, m, V] for input.decoder_input_ids,
  // with the options' decoder and cross gates (their rows may be a multiple k·B of the source rows
  // when memory and input were repeated by the caller). Attention (when captured) is the decoder's
  // blocks only, in block order.
  virtual ForwardResult decode(const torch::Tensor& memory, const ModelInput& input,
                               const ForwardOptions& options = {}) = 0;
};

}  // namespace aw
