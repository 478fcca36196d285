// models/nn/attention.h — multi-head attention computed in tiles of query rows. A row's softmax needs
// only that row's keys, so the probabilities of a block of rows are exact on their own: a tile of
// [B, H, rows, keys] is made, handed to whoever wants it, mixed into its rows of the context, and
// dropped. A layer's whole [B, H, n, n] is never held unless a consumer keeps it, and the masks are
// made per tile too (a causal mask of 32k × 32k would itself be 1 GB). The tile's height follows a
// memory budget; when the whole matrix fits it is one tile, computed exactly as before tiling.
#pragma once

#include "models/attention_path.h"  // fused_attention_allowed()
#include "models/nn/model.h"
#include "models/nn/modules.h"

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace aw {

// The masks of one tile of rows first_row … first_row + rows − 1 (undefined where none applies).
struct TileMasks {
  torch::Tensor blocked;             // bool [B|1, 1, rows, keys]: true where a score is set to −∞ (causal, padding)
  torch::Tensor blocked_bias;        // the same as an additive bias in the model's dtype: 0, or −∞ where blocked
  torch::Tensor diagonal_blocked;    // bool [rows, keys]: the diagonal except row 0 (DiagFreeMask)
  torch::Tensor diagonal_scale;      // float [rows, keys]: 1 off the diagonal, the factor on it
  torch::Tensor reweighted_blocked;  // bool [rows, keys]: BET(SF)'s own diagonal-free mask
};

// What every layer of one forward shares: the shape of its scores, which keys each query may see,
// the diagonal intervention and the tile budget. Masks are made per tile by masks().
struct AttentionContext {
  int64_t queries = 0, keys = 0;
  bool causal = false;
  int64_t window = 0;                 // causal only: > 0 also blocks keys `window` or more positions back
  torch::Tensor padding;              // bool [B, 1, 1, keys]: true at a padded key; undefined = none
  DiagonalIntervention diagonal;      // as applied: a ×1 scale is None (the unscaled path, bit for bit)
  bool reweighted_diagonal_mask = false;
  torch::TensorOptions float_options; // the model's dtype and device
  torch::Tensor rotary_cos, rotary_sin;  // [n, dims] rotary tables (rotary_tables), or undefined
  // Bytes one tile's scores and probabilities may take (see tile_rows); 0 = the whole matrix at once.
  int64_t memory_budget = 0;
  // The query rows computed: [first_row, end_row); end_row −1 = to the last. A view of a region
  // computes only its rows (AttentionModel::layer_attention_tiles); a forward computes them all.
  int64_t first_row = 0, end_row = -1;
  // Whether a forward whose probabilities nobody wants may use LibTorch's fused scaled-dot-product
  // attention (models/attention_path.h); false keeps the explicit path (ForwardOptions).
  bool fused = true;
  // The forward's hooks (forward_hooks.h) for the layer being run (none outside a forward).
  LayerHooks hooks;

  TileMasks masks(int64_t first_row, int64_t rows) const;
  // Query rows per tile for `batch` rows of `heads` heads in `dtype` under memory_budget. Throws
  // aw::Error naming the smallest budget that works when not even one row fits.
  int64_t tile_rows(int64_t batch, int64_t heads, torch::ScalarType dtype) const;
  int64_t row_end() const { return end_row < 0 ? queries : end_row; }
  // After a block whose k settings split the B rows into k·B (setting-major), the per-row
  // padding masks follow: repeated to `rows` when they are per row and have fewer.
  void follow_rows(int64_t rows);
};

// The context of one attention kind: `queries` × `keys` scores, causal or not, with the keys' padding
// (key_padding [B, keys], 1 = token; undefined = none), the diagonal intervention and BET(SF)'s own
// diagonal-free mask (`reweighted_diagonal_mask`); `float_options` is the model's dtype and device.
// A causal `window` > 0 also blocks keys `window` or more positions before the query (Mistral).
AttentionContext attention_context(int64_t queries, int64_t keys, bool causal, const torch::Tensor& key_padding,
                                   const DiagonalIntervention& diagonal, bool reweighted_diagonal_mask,
                                   const torch::TensorOptions& float_options, int64_t window = 0,
                                   int64_t memory_budget = 0);

// The bytes a tile of one query row takes: `batch` × `heads` × `keys` scores in `dtype`, their float32
// probabilities and the softmax's working copy.
int64_t attention_row_bytes(int64_t batch, int64_t heads, int64_t keys, torch::ScalarType dtype);
// The budget a forward tiles its attention with: options.memory_budget, or the process's default
// (runtime.h attention_memory_budget()) when that is 0.
int64_t resolved_memory_budget(const ForwardOptions& options);
// Throws the budget error of AttentionContext::tile_rows up front, before any layer has run, for the
// widest of a model's layers.
void check_memory_budget(int64_t budget, int64_t batch, int64_t heads, int64_t keys, torch::ScalarType dtype);

// A residual for its sublayer's output: repeated k times (setting-major) when k gate settings split
// the residual's B rows into k·B inside the sublayer.
torch::Tensor residual_rows(const torch::Tensor& residual, const torch::Tensor& sublayer);

struct AttentionOutput {
  torch::Tensor output;  // [k·B, n, d]
};
struct BlockOutput {
  torch::Tensor hidden;  // [k·B, n, d]
};

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  // `query_groups`: the query heads of each key/value head (grouped-query attention, DecoderPart);
  // empty = every head has its own key and value.
  MultiHeadAttentionImpl(const ModelConfig& config, int64_t heads, const std::vector<int64_t>& query_groups = {});

  // x [B, n, d]. The output is [k·B, n, d]: a writer at z (the gates among them: forward_hooks.h) may
  // repeat the contexts k times (setting-major), so the settings share the attention itself. Where no
  // hook reads or writes the scores or the pattern, the fused kernel mixes the context where it can
  // (fusable) and no probability is formed. With `memory` [B, m, d] defined this is cross-attention:
  // keys and values come from the memory, the probabilities are [B, H, n, m]; the memory may have
  // fewer rows than x (B of its k·B rows, when settings split the rows earlier): its keys and values
  // are computed once and repeated.
  AttentionOutput forward(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& memory = {});

  // The probabilities alone, tile by tile to `tiles`, of the context's rows [first_row, end_row),
  // as forward() computes them (values are made only where the scores need them: BET(SF)).
  void probabilities(const torch::Tensor& x, const AttentionContext& context, const TileConsumer& tiles,
                     const torch::Tensor& memory = {});

  int64_t heads() const { return heads_; }
  // Each head's write into the residual stream: contexts [..., H, dh] through its slice of o (no bias),
  // [..., H, d] (direct logit attribution).
  torch::Tensor head_writes(const torch::Tensor& contexts) const;

  Dense q{nullptr}, k{nullptr}, v{nullptr}, o{nullptr};
  Norm q_norm{nullptr}, k_norm{nullptr};  // DecoderPart::qk_norm only
  torch::Tensor bird_eye;  // [H, 2·dh]: w of R = sigmoid(wᵀ[H_j, K_j]) per head (BET(SF) only)
  torch::Tensor kv_index;  // [H] long: the key/value head of each query head (a buffer; grouped-query only)
  torch::Tensor sinks;     // [H]: each head's learned sink logit (DecoderPart::attention_sinks only)

 private:
  struct Projected {
    torch::Tensor query;     // (B, H, n, dh), rotated
    torch::Tensor key;       // (B, H, keys, dh), rotated, one per query head
    torch::Tensor value;     // (B, H, keys, dh); undefined unless asked for
    torch::Tensor reweight;  // (B, H, 1, keys): BET(SF)'s R_j, undefined otherwise
  };
  Projected project(const torch::Tensor& x, const AttentionContext& context, const torch::Tensor& memory,
                    bool with_value);
  // Scaled dot products of rows [first_row, first_row + rows) with their masks, before the softmax.
  torch::Tensor tile_scores(const Projected& projected, const TileMasks& masks, int64_t first_row, int64_t rows,
                            bool reweighted) const;
  // The tiles of rows [first_row, end_row): each tile's probabilities to `tiles`, and (with values)
  // mixed into its rows of the context, which comes back as (B, H, rows, dh).
  torch::Tensor run_tiles(const Projected& projected, const AttentionContext& context, const TileConsumer& tiles,
                          bool reweighted);
  // The output projection as the sum of each head's write, tile by tile of positions, each tile's
  // writes [B, H, rows, d] through the HeadOut hooks (a forward that reads or writes them).
  torch::Tensor hooked_head_outputs(const torch::Tensor& mixed, const AttentionContext& context);
  // The probabilities of a tile's scores, in the widened dtype: over the keys, and the sink's logit
  // when the heads have one (its share is left out of the row).
  torch::Tensor softmax(const torch::Tensor& scores) const;
  // Whether the context may be mixed by the fused kernel: available, allowed, and nothing the kernel
  // cannot express (BET(SF)'s reweighting, a diagonal intervention, sinks).
  bool fusable(const AttentionContext& context) const;
  // The context (B, H, n, dh) by the fused kernel: causal in one call, other masks tile by tile.
  torch::Tensor fused_context(const Projected& projected, const AttentionContext& context);

  int64_t heads_;
  int64_t d_head_;
  double dropout_;
  double divisor_;  // of the dot products: √d_head, or √query_scale (DecoderPart)
  double softcap_;  // DecoderPart::attention_softcap
  double clip_;     // DecoderPart::qkv_clip
  QkNorm qk_norm_;
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace aw
