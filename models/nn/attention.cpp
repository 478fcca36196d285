// models/nn/attention.cpp — see attention.h.
#include "models/nn/attention.h"

#include "models/attention_path.h"
#include "models/errors.h"
#include "models/memory_budget.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace aw {

int64_t attention_row_bytes(int64_t batch, int64_t heads, int64_t keys, torch::ScalarType dtype) {
  // The scores in the model's dtype, the float32 probabilities, and the softmax's float32 copy of
  // the scores (a BF16 model) or the masked copy (F32).
  return batch * heads * keys * (static_cast<int64_t>(c10::elementSize(dtype)) + 8);
}

void check_memory_budget(int64_t budget, int64_t batch, int64_t heads, int64_t keys, torch::ScalarType dtype) {
  const int64_t row = attention_row_bytes(batch, heads, keys, dtype);
  if (budget <= 0 || row <= budget) return;
  throw Error("the memory budget of " + format_bytes(budget) + " is too small for one row of attention (" +
              (batch > 1 ? std::to_string(batch) + " sequences × " : std::string()) + std::to_string(heads) +
              " heads × " + std::to_string(keys) + " keys = " + format_bytes(row) +
              "): the smallest that works is --memory-budget " + memory_size_argument(row));
}

int64_t resolved_memory_budget(const ForwardOptions& options) {
  return options.memory_budget > 0 ? options.memory_budget : attention_memory_budget();
}

TileMasks AttentionContext::masks(int64_t first, int64_t rows) const {
  const auto long_options = float_options.dtype(torch::kLong);
  TileMasks masks;
  torch::Tensor row, col;  // (rows, 1) and (1, keys) positions
  if (causal || diagonal.kind != DiagonalIntervention::Kind::None || reweighted_diagonal_mask) {
    row = torch::arange(first, first + rows, long_options).unsqueeze(1);
    col = torch::arange(keys, long_options).unsqueeze(0);
  }
  if (causal) {
    auto blocked = col.gt(row);
    if (window > 0) blocked.logical_or_(col.le(row - window));
    masks.blocked = blocked.view({1, 1, rows, keys});
  }
  if (padding.defined()) {
    masks.blocked = masks.blocked.defined() ? masks.blocked.logical_or(padding) : padding;
    // A padded query row can have every key blocked (past a sliding window of padding, or before the
    // text under left padding): a softmax over nothing is NaN, which the next layer spreads to every
    // row as 0 × NaN. Such a row attends to every key instead, as Hugging Face's additive masks make
    // it do; its output is never read.
    masks.blocked = masks.blocked.logical_and(masks.blocked.all(-1, /*keepdim=*/true).logical_not());
  }
  if (masks.blocked.defined())
    masks.blocked_bias = torch::zeros(masks.blocked.sizes(), float_options).masked_fill_(masks.blocked, -INFINITY);
  if (diagonal.kind == DiagonalIntervention::Kind::None && !reweighted_diagonal_mask) return masks;
  const auto on_diagonal = col.eq(row);                                   // (rows, keys)
  const auto diagonal_except_first = on_diagonal.logical_and(row.ne(0));  // row 0 keeps its only key
  if (diagonal.kind == DiagonalIntervention::Kind::Scale)
    masks.diagonal_scale = torch::ones({rows, keys}, float_options).masked_fill_(on_diagonal, diagonal.factor);
  if (diagonal.kind == DiagonalIntervention::Kind::Mask) masks.diagonal_blocked = diagonal_except_first;
  if (reweighted_diagonal_mask) masks.reweighted_blocked = diagonal_except_first;
  return masks;
}

int64_t AttentionContext::tile_rows(int64_t batch, int64_t heads, torch::ScalarType dtype) const {
  const int64_t all = std::max<int64_t>(row_end() - first_row, 1);
  if (memory_budget <= 0) return all;
  check_memory_budget(memory_budget, batch, heads, keys, dtype);
  return std::clamp<int64_t>(memory_budget / attention_row_bytes(batch, heads, keys, dtype), 1, all);
}

void AttentionContext::follow_rows(int64_t rows) {
  if (!padding.defined() || padding.size(0) == 1 || padding.size(0) == rows) return;
  padding = padding.repeat({rows / padding.size(0), 1, 1, 1});
}

AttentionContext attention_context(int64_t queries, int64_t keys, bool causal, const torch::Tensor& key_padding,
                                   const DiagonalIntervention& diagonal, bool reweighted_diagonal_mask,
                                   const torch::TensorOptions& float_options, int64_t window, int64_t memory_budget) {
  AttentionContext context;
  context.queries = queries;
  context.keys = keys;
  context.causal = causal;
  context.window = causal ? window : 0;
  if (key_padding.defined())
    context.padding = key_padding.to(float_options.device()).eq(0).view({key_padding.size(0), 1, 1, keys});
  context.diagonal = diagonal;
  // ×1 changes nothing: left out, the scores take the unscaled path and its rounding, so a diagonal
  // sweep's factor-1 row on a model without a diagonal-free mask (the caller lifts one for any scale)
  // is the baseline bit for bit (not float noise, whose bootstrap p-value then moved the other rows'
  // Holm-adjusted ones from one BLAS to another).
  if (diagonal.kind == DiagonalIntervention::Kind::Scale && diagonal.factor == 1.0) context.diagonal = {};
  context.reweighted_diagonal_mask = reweighted_diagonal_mask;
  context.float_options = float_options;
  context.memory_budget = memory_budget;
  return context;
}

torch::Tensor residual_rows(const torch::Tensor& residual, const torch::Tensor& sublayer) {
  if (sublayer.size(0) == residual.size(0)) return residual;
  return residual.repeat({sublayer.size(0) / residual.size(0), 1, 1});
}

// ---------------------------------------------------------------------------------------------
MultiHeadAttentionImpl::MultiHeadAttentionImpl(const ModelConfig& config, int64_t heads,
                                               const std::vector<int64_t>& query_groups)
    : heads_(heads),
      d_head_(config.d_head),
      dropout_(config.dropout),
      divisor_(std::sqrt(config.decoder.query_scale > 0 ? config.decoder.query_scale : static_cast<double>(config.d_head))),
      softcap_(config.decoder.attention_softcap),
      clip_(config.decoder.qkv_clip),
      qk_norm_(config.decoder.qk_norm) {
  const int64_t width = heads * config.d_head;
  const int64_t kv_width = (query_groups.empty() ? heads : static_cast<int64_t>(query_groups.size())) * config.d_head;
  const auto& d = config.decoder;
  q = register_module("q", Dense(config.d_model, width, d.qkv_bias));
  k = register_module("k", Dense(config.d_model, kv_width, d.qkv_bias));
  v = register_module("v", Dense(config.d_model, kv_width, d.qkv_bias));
  o = register_module("o", Dense(width, config.d_model, d.out_bias));
  if (qk_norm_ != QkNorm::None) {
    const bool whole = qk_norm_ == QkNorm::Whole;
    q_norm = register_module("q_norm", Norm(whole ? width : config.d_head, config.layer_norm_eps, d.norm));
    k_norm = register_module("k_norm", Norm(whole ? kv_width : config.d_head, config.layer_norm_eps, d.norm));
  }
  if (kv_width != width) {
    std::vector<int64_t> owner;
    for (int64_t group = 0; group < static_cast<int64_t>(query_groups.size()); ++group)
      owner.insert(owner.end(), static_cast<size_t>(query_groups[group]), group);
    kv_index = register_buffer("kv_index", torch::tensor(owner, torch::kLong));
  }
  if (config.bird_eye) bird_eye = register_parameter("bird_eye", torch::zeros({heads, 2 * config.d_head}));
  if (d.attention_sinks) sinks = register_parameter("sinks", torch::zeros({heads}));
}

MultiHeadAttentionImpl::Projected MultiHeadAttentionImpl::project(const torch::Tensor& x,
                                                                  const AttentionContext& context,
                                                                  const torch::Tensor& memory, bool with_value) {
  const auto& source = memory.defined() ? memory : x;
  const int64_t batch = x.size(0);
  auto split_heads = [&](const torch::Tensor& t) {  // (B, n, H·dh) -> (B, H, n, dh)
    return t.view({t.size(0), t.size(1), heads_, d_head_}).transpose(1, 2);
  };
  auto split_kv_heads = [&](const torch::Tensor& t) {  // (B, n, KV·dh) -> (B, KV, n, dh)
    return t.view({t.size(0), t.size(1), -1, d_head_}).transpose(1, 2);
  };
  Projected projected;
  auto& [query, key, value, reweight] = projected;
  // OLMoE: queries, keys and values clamped to ±clip_qkv after the norms.
  auto clipped = [&](torch::Tensor t) { return clip_ > 0 ? t.clamp(-clip_, clip_) : t; };
  if (qk_norm_ == QkNorm::Whole) {  // OLMo 2: over every head's query (key) at once, then split
    query = split_heads(clipped(q_norm(q(x))));
    key = split_kv_heads(clipped(k_norm(k(source))));
  } else {
    query = split_heads(q(x));
    key = split_kv_heads(k(source));
    if (qk_norm_ == QkNorm::PerHead) query = q_norm(query), key = k_norm(key);
  }
  if (context.rotary_cos.defined()) {
    query = apply_rotary(query, context.rotary_cos, context.rotary_sin);
    key = apply_rotary(key, context.rotary_cos, context.rotary_sin);
  }
  const auto& hooks = context.hooks;
  query = hooks.run(HookPoint::Q, std::move(query));
  key = hooks.run(HookPoint::K, std::move(key));
  if (with_value || bird_eye.defined()) value = hooks.run(HookPoint::V, split_kv_heads(clipped(v(source))));
  if (kv_index.defined()) {  // grouped-query: each query head reads its group's key and value
    // Module::to(dtype) converts integer buffers too (a model moved to float64 for the gradient
    // checks): the index is read as long whatever was done to it.
    const auto owner = kv_index.to(torch::kLong);
    key = key.index_select(1, owner);
    if (value.defined()) value = value.index_select(1, owner);
  }
  if (key.size(0) != batch) {  // memory of B rows for queries of k·B rows (setting-major)
    key = key.repeat({batch / key.size(0), 1, 1, 1});
    if (value.defined()) value = value.repeat({batch / value.size(0), 1, 1, 1});
  }
  if (bird_eye.defined()) {
    // BET(SF): H = softmax(M_dp) V over every row (R_j needs row j's context, whatever rows are
    // asked for); R_j = sigmoid(wᵀ[H_j, K_j]) per key position j, applied to score column j.
    const int64_t tile = context.tile_rows(batch, heads_, query.scalar_type());
    std::vector<torch::Tensor> contexts;
    for (int64_t first = 0; first < context.queries; first += tile) {
      const int64_t rows = std::min(tile, context.queries - first);
      auto scores = tile_scores(projected, context.masks(first, rows), first, rows, /*reweighted=*/false);
      contexts.push_back(torch::matmul(torch::softmax(scores, -1), value));                // (B, H, rows, dh)
    }
    auto bird_context = contexts.size() == 1 ? contexts.front() : torch::cat(contexts, 2);  // (B, H, n, dh)
    auto features = torch::cat({bird_context, key}, -1);                                   // (B, H, n, 2dh)
    reweight = torch::sigmoid(torch::einsum("bhnc,hc->bhn", {features, bird_eye})).unsqueeze(-2);  // (B, H, 1, n)
    if (!with_value) value = torch::Tensor();
  }
  return projected;
}

torch::Tensor MultiHeadAttentionImpl::tile_scores(const Projected& projected, const TileMasks& masks, int64_t first_row,
                                                  int64_t rows, bool reweighted) const {
  const auto query = projected.query.narrow(2, first_row, rows);
  const auto& key = projected.key;
  const int64_t batch = query.size(0), keys = key.size(2);
  if (masks.blocked_bias.defined() && !masks.diagonal_scale.defined() && !masks.diagonal_blocked.defined() &&
      !bird_eye.defined() && softcap_ == 0) {
    // Plain masked attention: the scale and the masks ride on the product, bias + scale · QKᵀ in one
    // GEMM (baddbmm), instead of two more passes over the scores after it.
    auto scores = masks.blocked_bias.expand({batch, heads_, rows, keys}).contiguous();
    scores.view({batch * heads_, rows, keys})
        .baddbmm_(query.reshape({batch * heads_, rows, d_head_}),
                  key.transpose(-2, -1).reshape({batch * heads_, d_head_, keys}), 1.0, 1.0 / divisor_);
    return scores;
  }
  // M_dp: scaled dot products (B, H, rows, keys), then the diagonal intervention, R_j, and the masks.
  // The product with R_j comes before masking: −∞ · R_j would give a NaN gradient for R_j.
  auto scores = torch::matmul(query, key.transpose(-2, -1)) / divisor_;
  if (softcap_ > 0) scores = torch::tanh(scores / softcap_) * softcap_;  // Gemma 2, before any mask
  if (masks.diagonal_scale.defined()) scores = scores * masks.diagonal_scale;
  if (reweighted) scores = scores * projected.reweight;
  if (masks.blocked.defined()) scores = scores.masked_fill(masks.blocked, -INFINITY);
  if (masks.diagonal_blocked.defined()) scores = scores.masked_fill(masks.diagonal_blocked, -INFINITY);
  if (reweighted && masks.reweighted_blocked.defined()) scores = scores.masked_fill(masks.reweighted_blocked, -INFINITY);
  return scores;
}

torch::Tensor MultiHeadAttentionImpl::run_tiles(const Projected& projected, const AttentionContext& context,
                                                const TileConsumer& tiles, bool reweighted) {
  const int64_t end = context.row_end();
  const int64_t tile = context.tile_rows(projected.query.size(0), heads_, projected.query.scalar_type());
  // The heads' outputs of every tile, written in place: a list of small blocks, each made after its
  // tile's large ones and kept past them, left holes in glibc's heap that the next tile's blocks did
  // not fit, so a long text's heap grew a tile's size per tile (Llama-1B at 8,192 tokens: 80 MB a tile,
  // 3 GB a layer).
  torch::Tensor mixed;
  for (int64_t first = context.first_row; first < end; first += tile) {
    const int64_t rows = std::min(tile, end - first);
    // The softmax in float32 for a BF16 or F16 model (as Hugging Face's eager attention): the
    // probabilities every analysis reads keep their precision.
    auto scores = context.hooks.run(HookPoint::Scores,
                                    tile_scores(projected, context.masks(first, rows), first, rows, reweighted), first);
    auto probabilities = context.hooks.run(HookPoint::Pattern, softmax(scores), first);  // (B, H, rows, keys)
    scores = torch::Tensor();
    if (tiles) tiles(first, probabilities);
    if (projected.value.defined()) {
      auto weights = torch::dropout(probabilities, dropout_, is_training()).to(projected.value.scalar_type());
      auto part = torch::matmul(weights, projected.value);                                 // (B, H, rows, dh)
      if (rows == end - context.first_row) return part;                                    // one tile: the whole
      if (!mixed.defined())
        mixed = torch::empty({part.size(0), part.size(1), end - context.first_row, part.size(3)}, part.options());
      mixed.narrow(2, first - context.first_row, rows).copy_(part);
    }
  }
  return mixed;
}

torch::Tensor MultiHeadAttentionImpl::softmax(const torch::Tensor& scores) const {
  const auto dtype = widened(scores.scalar_type());
  if (!sinks.defined()) return torch::softmax(scores, -1, dtype);
  // gpt-oss: each head's sink logit as one more column of every row, dropped after the softmax.
  const auto sink = sinks.to(dtype).view({1, heads_, 1, 1}).expand({scores.size(0), heads_, scores.size(2), 1});
  return torch::softmax(torch::cat({scores.to(dtype), sink}, -1), -1).narrow(-1, 0, scores.size(-1));
}

bool MultiHeadAttentionImpl::fusable(const AttentionContext& context) const {
  // The kernel scales by d_head^(−1/2) and knows no soft-capping.
  const bool plain_scores = softcap_ == 0 && divisor_ == std::sqrt(static_cast<double>(d_head_));
  const bool tiles_hooked = context.hooks.has(HookPoint::Scores) || context.hooks.has(HookPoint::Pattern);
  return fused_attention_allowed() && context.fused && !bird_eye.defined() && !sinks.defined() &&
         context.diagonal.kind == DiagonalIntervention::Kind::None && plain_scores && !tiles_hooked;
}

torch::Tensor MultiHeadAttentionImpl::fused_context(const Projected& projected, const AttentionContext& context) {
  const auto& [query, key, value, reweight] = projected;
  const double dropout = is_training() ? dropout_ : 0.0;
  // Plain causal attention is the kernel's own mask: one call, no mask tensor at any length.
  if (context.causal && context.window == 0 && !context.padding.defined() && context.queries == context.keys)
    return at::scaled_dot_product_attention(query, key, value, {}, dropout, /*is_causal=*/true);
  // Padding or a sliding window: a boolean mask (true = may attend) per tile of rows, so the mask
  // never spans n × n.
  const int64_t tile = context.tile_rows(query.size(0), heads_, query.scalar_type());
  std::vector<torch::Tensor> mixed;
  for (int64_t first = 0; first < context.queries; first += tile) {
    const int64_t rows = std::min(tile, context.queries - first);
    const auto masks = context.masks(first, rows);
    c10::optional<torch::Tensor> allowed;
    if (masks.blocked.defined()) allowed = masks.blocked.logical_not();
    mixed.push_back(at::scaled_dot_product_attention(query.narrow(2, first, rows), key, value, allowed, dropout));
  }
  return mixed.size() == 1 ? std::move(mixed.front()) : torch::cat(mixed, 2);
}

void MultiHeadAttentionImpl::probabilities(const torch::Tensor& x, const AttentionContext& context,
                                           const TileConsumer& tiles, const torch::Tensor& memory) {
  run_tiles(project(x, context, memory, /*with_value=*/false), context, tiles, bird_eye.defined());
}

AttentionOutput MultiHeadAttentionImpl::forward(const torch::Tensor& x, const AttentionContext& context,
                                                const torch::Tensor& memory) {
  TORCH_CHECK(context.first_row == 0 && context.end_row < 0, "a forward computes every query row");
  const int64_t length = x.size(1);
  const auto projected = project(x, context, memory, /*with_value=*/true);
  auto mixed = fusable(context) ? fused_context(projected, context)
                                : run_tiles(projected, context, {}, bird_eye.defined());
  // The gates (forward_hooks.h) and any writer here may make the B rows k·B (k settings).
  mixed = context.hooks.run(HookPoint::Z, std::move(mixed));
  if (context.hooks.has(HookPoint::HeadOut)) return {hooked_head_outputs(mixed, context)};
  return {o(mixed.transpose(1, 2).reshape({mixed.size(0), length, heads_ * d_head_}))};  // (k·B, n, d)
}

torch::Tensor MultiHeadAttentionImpl::hooked_head_outputs(const torch::Tensor& mixed, const AttentionContext& context) {
  // Each head's write [B, H, rows, d] is whole only for a tile of positions within the memory budget.
  const int64_t batch = mixed.size(0), length = mixed.size(2), d = o->weight.size(0);
  const int64_t per_position = batch * heads_ * d * static_cast<int64_t>(mixed.element_size());
  const int64_t tile = context.memory_budget > 0 ? std::max<int64_t>(1, context.memory_budget / per_position) : length;
  auto output = torch::empty({batch, length, d}, mixed.options());
  for (int64_t first = 0; first < length; first += tile) {
    const int64_t rows = std::min(tile, length - first);
    auto writes = head_writes(mixed.narrow(2, first, rows).transpose(1, 2)).transpose(1, 2);  // (B, H, rows, d)
    writes = context.hooks.run(HookPoint::HeadOut, std::move(writes), first);
    auto summed = writes.sum(1);                                                              // (B, rows, d)
    if (o->bias.defined()) summed = summed + o->bias.to(summed.scalar_type());
    output.narrow(1, first, rows).copy_(summed);
  }
  return output;
}

torch::Tensor MultiHeadAttentionImpl::head_writes(const torch::Tensor& contexts) const {
  const auto d = o->weight.size(0);
  // o.weight [d, H·dh] as [d, H, dh]: head h writes Σ_e W[:, h, e] z_h[e].
  const auto per_head = o->weight.view({d, heads_, d_head_}).to(contexts.scalar_type());
  return torch::einsum("...he,dhe->...hd", {contexts, per_head});
}

}  // namespace aw
