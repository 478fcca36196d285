// models/nn/transformer.cpp — forward passes of the shared transformer (see transformer.h).
#include "models/nn/transformer.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

constexpr double kInitStd = 0.02;

// The dtype probabilities and logits are given in: float32 for a BF16 or F16 model (as Hugging
// Face's eager attention and output), the model's own otherwise (float64 in the gradient checks).
torch::ScalarType widened(torch::ScalarType dtype) {
  return dtype == torch::kBFloat16 || dtype == torch::kHalf ? torch::kFloat32 : dtype;
}

Dense make_linear(int64_t in, int64_t out, bool bias = true) { return Dense(in, out, bias); }

Norm make_norm(const ModelConfig& config) { return Norm(config.d_model, config.layer_norm_eps, config.decoder.norm); }

// (x1, x2) -> (−x2, x1) over the two halves of the last dimension.
torch::Tensor rotate_half(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

}  // namespace

torch::Tensor activate(const torch::Tensor& x, Activation activation) {
  switch (activation) {
    case Activation::Relu: return torch::relu(x);
    case Activation::Gelu: return torch::gelu(x);
    case Activation::GeluTanh: return torch::gelu(x, "tanh");
    case Activation::Silu: return torch::silu(x);
  }
  return x;
}

// Vaswani et al.: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)).
torch::Tensor sinusoid_table(int64_t positions, int64_t d_model, bool split) {
  using torch::indexing::None;
  using torch::indexing::Slice;
  auto position = torch::arange(positions, torch::kFloat64).unsqueeze(1);               // (P, 1)
  auto even = torch::arange(0, d_model, 2, torch::kFloat64);                             // (⌈d/2⌉)
  auto angle = position / torch::pow(10000.0, even / static_cast<double>(d_model));    // (P, ⌈d/2⌉)
  auto table = torch::zeros({positions, d_model}, torch::kFloat64);
  const int64_t sines = angle.size(1);
  if (split) {
    table.index_put_({Slice(), Slice(0, sines)}, torch::sin(angle));
    table.index_put_({Slice(), Slice(sines, None)}, torch::cos(angle).narrow(1, 0, d_model - sines));
  } else {
    table.index_put_({Slice(), Slice(0, None, 2)}, torch::sin(angle));
    table.index_put_({Slice(), Slice(1, None, 2)}, torch::cos(angle).narrow(1, 0, d_model / 2));
  }
  return table.to(torch::kFloat32);
}

void initialise_weights(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& item : module.named_parameters()) {
    const auto& name = item.key();
    auto& tensor = item.value();
    const bool is_norm = name.find("ln_") != std::string::npos || name.find("_ln") != std::string::npos;
    const bool is_bias = name.size() > 4 && name.substr(name.size() - 4) == "bias";
    if (is_norm) tensor.fill_(is_bias ? 0.0 : 1.0);
    else if (is_bias) tensor.zero_();
    else tensor.normal_(0.0, kInitStd);
  }
}

NormImpl::NormImpl(int64_t width, double eps, NormKind kind) : eps_(eps), kind_(kind) {
  weight = register_parameter("weight", torch::ones({width}));
  if (kind == NormKind::LayerNorm) bias = register_parameter("bias", torch::zeros({width}));
}

torch::Tensor NormImpl::forward(const torch::Tensor& x) {
  if (kind_ == NormKind::LayerNorm) return torch::layer_norm(x, {weight.size(0)}, weight, bias, eps_);
  const auto wide = x.to(widened(x.scalar_type()));  // float32 for BF16/F16, float64 stays float64
  const auto normed = wide * torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return weight * normed.to(x.scalar_type());
}

std::pair<torch::Tensor, torch::Tensor> rotary_tables(const RotaryPart& rotary, int64_t length,
                                                      const torch::TensorOptions& float_options) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto frequency = torch::pow(rotary.theta, -torch::arange(0, rotary.dims, 2, f64) / static_cast<double>(rotary.dims));
  if (rotary.scaling == RopeScaling::Linear) frequency = frequency / rotary.factor;
  if (rotary.scaling == RopeScaling::Llama3) {
    // Long wavelengths (beyond the trained context ÷ low_freq_factor) are divided by the factor,
    // short ones (below context ÷ high_freq_factor) kept, and those between blended linearly in
    // context / wavelength.
    const double context = static_cast<double>(rotary.original_max_positions);
    const auto wavelength = 2 * M_PI / frequency;
    const auto blend = ((context / wavelength - rotary.low_freq_factor) /
                        (rotary.high_freq_factor - rotary.low_freq_factor)).clamp(0.0, 1.0);
    frequency = (1 - blend) * frequency / rotary.factor + blend * frequency;
  }
  const auto angles = torch::outer(torch::arange(length, f64), frequency);  // (n, dims/2)
  const auto doubled = torch::cat({angles, angles}, -1);                    // (n, dims)
  return {torch::cos(doubled).to(float_options), torch::sin(doubled).to(float_options)};
}

torch::Tensor apply_rotary(const torch::Tensor& t, const torch::Tensor& cos, const torch::Tensor& sin) {
  const int64_t dims = cos.size(-1);
  if (dims == t.size(-1)) return t * cos + rotate_half(t) * sin;
  const auto turned = t.narrow(-1, 0, dims);
  return torch::cat({turned * cos + rotate_half(turned) * sin, t.narrow(-1, dims, t.size(-1) - dims)}, -1);
}

AttentionContext attention_context(int64_t queries, int64_t keys, bool causal, const torch::Tensor& key_padding,
                                   const DiagonalIntervention& diagonal, bool reweighted_diagonal_mask,
                                   const torch::TensorOptions& float_options, int64_t window) {
  const auto bool_options = float_options.dtype(torch::kBool);
  AttentionContext context;
  if (causal) {
    auto blocked = torch::ones({queries, keys}, bool_options).triu(1);
    if (window > 0) blocked.logical_or_(torch::ones({queries, keys}, bool_options).tril(-window));
    context.blocked = blocked.view({1, 1, queries, keys});
  }
  if (key_padding.defined()) {
    auto padding = key_padding.to(float_options.device()).eq(0).view({key_padding.size(0), 1, 1, keys});
    context.blocked = context.blocked.defined() ? context.blocked.logical_or(padding) : padding;
  }
  if (context.blocked.defined())
    context.blocked_bias = torch::zeros(context.blocked.sizes(), float_options).masked_fill_(context.blocked, -INFINITY);
  if (diagonal.kind == DiagonalIntervention::Kind::None && !reweighted_diagonal_mask) return context;
  auto diagonal_except_first = torch::eye(queries, keys, bool_options);
  diagonal_except_first.index_put_({0, 0}, false);
  switch (diagonal.kind) {
    case DiagonalIntervention::Kind::None: break;
    case DiagonalIntervention::Kind::Scale:
      // ×1 changes nothing: left out, the scores take the unscaled path and its rounding, so a
      // diagonal sweep's factor-1 row is the baseline bit for bit (not float noise, whose bootstrap
      // p-value then moved the other rows' Holm-adjusted ones from one BLAS to another).
      if (diagonal.factor != 1.0)
        context.diagonal_scale = torch::ones({queries, keys}, float_options).fill_diagonal_(diagonal.factor);
      break;
    case DiagonalIntervention::Kind::Mask: context.diagonal_blocked = diagonal_except_first; break;
  }
  if (reweighted_diagonal_mask) context.reweighted_blocked = diagonal_except_first;
  return context;
}

torch::Tensor residual_rows(const torch::Tensor& residual, const torch::Tensor& sublayer) {
  if (sublayer.size(0) == residual.size(0)) return residual;
  return residual.repeat({sublayer.size(0) / residual.size(0), 1, 1});
}

void AttentionContext::follow_rows(int64_t rows) {
  if (!blocked.defined() || blocked.size(0) == 1 || blocked.size(0) == rows) return;
  blocked = blocked.repeat({rows / blocked.size(0), 1, 1, 1});
  blocked_bias = blocked_bias.repeat({rows / blocked_bias.size(0), 1, 1, 1});
}

DiagonalIntervention trained_diagonal(DiagMode diag_mode) {
  switch (diag_mode) {
    case DiagMode::Normal: break;
    case DiagMode::Reduced: return DiagonalIntervention::scale(0.2);
    case DiagMode::Magnified: return DiagonalIntervention::scale(2.0);
    case DiagMode::Mask: return DiagonalIntervention::mask();
  }
  return DiagonalIntervention::none();
}

// ---------------------------------------------------------------------------------------------
DenseImpl::DenseImpl(int64_t in, int64_t out, bool with_bias) {
  weight = register_parameter("weight", torch::empty({out, in}));
  if (with_bias) bias = register_parameter("bias", torch::empty({out}));
}

LookupImpl::LookupImpl(int64_t rows, int64_t width) {
  weight = register_parameter("weight", torch::empty({rows, width}));
}

// ---------------------------------------------------------------------------------------------
MultiHeadAttentionImpl::MultiHeadAttentionImpl(const ModelConfig& config, int64_t heads,
                                               const std::vector<int64_t>& query_groups)
    : heads_(heads), d_head_(config.d_head), dropout_(config.dropout) {
  const int64_t width = heads * config.d_head;
  const int64_t kv_width = (query_groups.empty() ? heads : static_cast<int64_t>(query_groups.size())) * config.d_head;
  const auto& d = config.decoder;
  q = register_module("q", make_linear(config.d_model, width, d.qkv_bias));
  k = register_module("k", make_linear(config.d_model, kv_width, d.qkv_bias));
  v = register_module("v", make_linear(config.d_model, kv_width, d.qkv_bias));
  o = register_module("o", make_linear(width, config.d_model, d.out_bias));
  if (kv_width != width) {
    std::vector<int64_t> owner;
    for (int64_t group = 0; group < static_cast<int64_t>(query_groups.size()); ++group)
      owner.insert(owner.end(), static_cast<size_t>(query_groups[group]), group);
    kv_index = register_buffer("kv_index", torch::tensor(owner, torch::kLong));
  }
  if (config.bird_eye) bird_eye = register_parameter("bird_eye", torch::zeros({heads, 2 * config.d_head}));
}

MultiHeadAttentionImpl::Weighed MultiHeadAttentionImpl::weigh(const torch::Tensor& x, const AttentionContext& context,
                                                              const torch::Tensor& memory, bool with_value) {
  const auto& source = memory.defined() ? memory : x;
  const int64_t batch = x.size(0), length = x.size(1), keys = source.size(1);
  auto split_heads = [&](const torch::Tensor& t) {  // (B, n, H·dh) -> (B, H, n, dh)
    return t.view({t.size(0), t.size(1), heads_, d_head_}).transpose(1, 2);
  };
  auto split_kv_heads = [&](const torch::Tensor& t) {  // (B, n, KV·dh) -> (B, KV, n, dh)
    return t.view({t.size(0), t.size(1), -1, d_head_}).transpose(1, 2);
  };
  auto query = split_heads(q(x)), key = split_kv_heads(k(source));
  if (context.rotary_cos.defined()) {
    query = apply_rotary(query, context.rotary_cos, context.rotary_sin);
    key = apply_rotary(key, context.rotary_cos, context.rotary_sin);
  }
  torch::Tensor value;
  if (with_value || bird_eye.defined()) value = split_kv_heads(v(source));
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

  const double scale = 1.0 / std::sqrt(static_cast<double>(d_head_));
  auto apply_masks = [&](torch::Tensor t) {
    if (context.blocked.defined()) t = t.masked_fill(context.blocked, -INFINITY);
    if (context.diagonal_blocked.defined()) t = t.masked_fill(context.diagonal_blocked, -INFINITY);
    return t;
  };
  torch::Tensor raw_scores, scores;
  if (context.blocked_bias.defined() && !context.diagonal_scale.defined() && !context.diagonal_blocked.defined() &&
      !bird_eye.defined()) {
    // Plain masked attention: the scale and the masks ride on the product, bias + scale · QKᵀ in one
    // GEMM (baddbmm), instead of two more passes over the [B, H, n, n] scores after it.
    scores = context.blocked_bias.expand({batch, heads_, length, keys}).contiguous();
    scores.view({batch * heads_, length, keys})
        .baddbmm_(query.reshape({batch * heads_, length, d_head_}),
                  key.transpose(-2, -1).reshape({batch * heads_, d_head_, keys}), 1.0, scale);
  } else {
    // M_dp: scaled dot products (B, H, n, n), then the diagonal intervention and the masks.
    raw_scores = torch::matmul(query, key.transpose(-2, -1)) / std::sqrt(static_cast<double>(d_head_));
    if (context.diagonal_scale.defined()) raw_scores = raw_scores * context.diagonal_scale;
    scores = apply_masks(raw_scores);
  }

  if (bird_eye.defined()) {
    // BET(SF): H = softmax(M_dp) V; R_j = sigmoid(wᵀ[H_j, K_j]) per key position j (B, H, n);
    // every score column j is multiplied by R_j. The product is taken before masking: −∞ · R_j
    // would give a NaN gradient for R_j even though the forward value stays −∞.
    auto bird_context = torch::matmul(torch::softmax(scores, -1), value);                 // (B, H, n, dh)
    auto features = torch::cat({bird_context, key}, -1);                                  // (B, H, n, 2dh)
    auto reweight = torch::sigmoid(torch::einsum("bhnc,hc->bhn", {features, bird_eye}));  // (B, H, n)
    scores = apply_masks(raw_scores * reweight.unsqueeze(-2));
    if (context.reweighted_blocked.defined()) scores = scores.masked_fill(context.reweighted_blocked, -INFINITY);
  }

  // The softmax in float32 for a BF16 or F16 model (as Hugging Face's eager attention): the
  // probabilities every analysis reads keep their precision.
  return {torch::softmax(scores, -1, widened(scores.scalar_type())), with_value ? std::move(value) : torch::Tensor()};  // (B, H, n, n)
}

torch::Tensor MultiHeadAttentionImpl::probabilities(const torch::Tensor& x, const AttentionContext& context,
                                                    const torch::Tensor& memory) {
  return weigh(x, context, memory, /*with_value=*/false).probabilities;
}

AttentionOutput MultiHeadAttentionImpl::forward(const torch::Tensor& x, const AttentionContext& context,
                                                const torch::Tensor& gates, bool return_probabilities,
                                                const torch::Tensor& memory) {
  const int64_t batch = x.size(0), length = x.size(1);
  auto [attention, value] = weigh(x, context, memory, /*with_value=*/true);
  auto weights = torch::dropout(attention, dropout_, is_training()).to(value.scalar_type());
  auto mixed = torch::matmul(weights, value);  // (B, H, n, dh)
  if (gates.defined()) {
    // k·B gate rows: k settings of the same B rows, which part ways here (setting-major).
    if (gates.size(0) > batch) mixed = mixed.repeat({gates.size(0) / batch, 1, 1, 1});  // (k·B, H, n, dh)
    mixed = mixed * gates.view({gates.size(0), heads_, 1, 1});
  }
  auto output = o(mixed.transpose(1, 2).reshape({mixed.size(0), length, heads_ * d_head_}));  // (k·B, n, d)
  return {std::move(output), return_probabilities ? std::move(attention) : torch::Tensor()};
}

// ---------------------------------------------------------------------------------------------
FeedForwardImpl::FeedForwardImpl(const ModelConfig& config) : activation_(config.activation) {
  const bool bias = config.decoder.mlp_bias;
  fc1 = register_module("fc1", make_linear(config.d_model, config.d_ff, bias));
  fc2 = register_module("fc2", make_linear(config.d_ff, config.d_model, bias));
  if (config.decoder.gated_mlp) gate = register_module("gate", make_linear(config.d_model, config.d_ff, bias));
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x) {
  if (gate) return fc2(activate(gate(x), activation_) * fc1(x));
  return fc2(activate(fc1(x), activation_));
}

// ---------------------------------------------------------------------------------------------
TransformerBlockImpl::TransformerBlockImpl(const ModelConfig& config, int64_t layer)
    : norm_(config.norm), parallel_residual_(config.decoder.parallel_residual), dropout_(config.dropout) {
  const auto& groups = config.decoder.query_groups;
  ln_1 = register_module("ln_1", make_norm(config));
  attn = register_module("attn", MultiHeadAttention(config, config.heads_per_block[layer],
                                                    groups.empty() ? std::vector<int64_t>{} : groups[layer]));
  ln_2 = register_module("ln_2", make_norm(config));
  mlp = register_module("mlp", FeedForward(config));
}

BlockOutput TransformerBlockImpl::forward(const torch::Tensor& x, const AttentionContext& context,
                                          const torch::Tensor& gates, bool return_probabilities) {
  const bool training = is_training();
  if (parallel_residual_) {  // GPT-NeoX: both sublayers read x
    auto attended = attn(ln_1(x), context, gates, return_probabilities);
    auto fed = torch::dropout(mlp(ln_2(x)), dropout_, training);
    auto h = residual_rows(x, attended.output) + torch::dropout(attended.output, dropout_, training);
    return {h + residual_rows(fed, attended.output), std::move(attended.probabilities)};
  }
  if (norm_ == NormPlacement::Pre) {
    auto attended = attn(ln_1(x), context, gates, return_probabilities);
    auto h = residual_rows(x, attended.output) + torch::dropout(attended.output, dropout_, training);
    return {h + torch::dropout(mlp(ln_2(h)), dropout_, training), std::move(attended.probabilities)};
  }
  auto attended = attn(x, context, gates, return_probabilities);
  auto h = ln_1(residual_rows(x, attended.output) + torch::dropout(attended.output, dropout_, training));
  return {ln_2(h + torch::dropout(mlp(h), dropout_, training)), std::move(attended.probabilities)};
}

torch::Tensor TransformerBlockImpl::probabilities(const torch::Tensor& x, const AttentionContext& context) {
  return attn->probabilities(norm_ == NormPlacement::Pre ? ln_1(x) : x, context);
}

// ---------------------------------------------------------------------------------------------
TransformerImpl::TransformerImpl(ModelConfig config, bool initialise) : config_(std::move(config)) {
  const auto& c = config_;
  tok_emb = register_module("tok_emb", Lookup(c.vocab_size, c.d_model));
  if (c.positions == PositionKind::Learned)
    pos_emb = register_module("pos_emb", Lookup(c.max_positions, c.d_model));
  else if (c.positions == PositionKind::Sinusoidal)
    sinusoid_ = register_buffer("sinusoid", sinusoid_table(c.max_positions, c.d_model));
  if (c.bert.type_vocab_size > 0) type_emb = register_module("type_emb", Lookup(c.bert.type_vocab_size, c.d_model));
  if (c.bert.embedding_norm) emb_ln = register_module("emb_ln", make_norm(c));

  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t layer = 0; layer < c.n_blocks; ++layer) layers->push_back(TransformerBlock(c, layer));

  if (c.norm == NormPlacement::Pre) ln_f = register_module("ln_f", make_norm(c));
  if (c.is_language_model() && !c.tie_embeddings)
    lm_head = register_module("lm_head", make_linear(c.d_model, c.vocab_size, /*bias=*/false));
  if (c.bert.pooler) pooler = register_module("pooler", make_linear(c.d_model, c.d_model));
  if (c.is_classifier()) classifier = register_module("classifier", make_linear(c.d_model, c.num_labels));

  if (initialise) initialise_weights(*this);
}

torch::Tensor TransformerImpl::embed(const ModelInput& input) {
  const auto device = tok_emb->weight.device();
  TORCH_CHECK(input.input_ids.dim() == 2, "input_ids must be [B, n]");
  const int64_t length = input.input_ids.size(1);
  if (length > config_.max_positions)
    throw Error("sequence length " + std::to_string(length) + " exceeds the model's " +
                std::to_string(config_.max_positions) + " positions");
  auto ids = input.input_ids.to(device);
  auto hidden = tok_emb(ids);                                                              // (B, n, d)
  if (pos_emb) hidden = hidden + pos_emb(torch::arange(length, torch::dtype(torch::kLong).device(device))).unsqueeze(0);
  else if (sinusoid_.defined()) hidden = hidden + sinusoid_.narrow(0, 0, length).unsqueeze(0);
  if (type_emb) {
    auto types = input.token_type_ids.defined() ? input.token_type_ids.to(device) : torch::zeros_like(ids);
    hidden = hidden + type_emb(types);
  }
  if (emb_ln) hidden = emb_ln(hidden);
  return torch::dropout(hidden, config_.dropout, is_training());
}

torch::Tensor TransformerImpl::layer_gates(const torch::Tensor& gates, int64_t layer, int64_t batch) const {
  if (!gates.defined()) return {};
  const int64_t heads = config_.heads_per_block[layer];
  if (gates.dim() == 2) return gates.select(0, layer).narrow(0, 0, heads).view({1, heads});
  TORCH_INTERNAL_ASSERT(gates.size(0) % batch == 0);
  return gates.select(1, layer).narrow(1, 0, heads);                                      // (k·B, H)
}

LayersResult TransformerImpl::run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer,
                                         int64_t end_layer, const ForwardOptions& options) {
  const int64_t batch = hidden.size(0), length = hidden.size(1);
  torch::Tensor gates;
  if (options.head_gates.defined()) {
    gates = options.head_gates.to(hidden.device(), hidden.scalar_type());
    const bool layers_ok = gates.dim() >= 2 && gates.size(-2) == config_.n_blocks && gates.size(-1) == config_.max_heads();
    const bool batch_ok = gates.dim() == 2 || (gates.dim() == 3 && gates.size(0) % batch == 0);
    if (!layers_ok || !batch_ok)
      throw Error("head gates have shape " + shape_string(gates.sizes()) + "; expected [" +
                  std::to_string(config_.n_blocks) + ", " + std::to_string(config_.max_heads()) + "] or [k·" +
                  std::to_string(batch) + ", " + std::to_string(config_.n_blocks) + ", " +
                  std::to_string(config_.max_heads()) + "]");
  }
  auto context = layers_context(length, input, options);
  AttentionSink sink(options);
  for (int64_t layer = first_layer; layer < end_layer; ++layer) {
    const int64_t rows = hidden.size(0);
    auto block = layers[layer]->as<TransformerBlock>()->forward(hidden, context, layer_gates(gates, layer, rows),
                                                                sink.wants_probabilities());
    hidden = std::move(block.hidden);
    // After the first gated layer the rows may have multiplied (k settings): so do the padding masks.
    if (hidden.size(0) != rows) context.follow_rows(hidden.size(0));
    sink.take(layer, block.probabilities);
  }
  return {std::move(hidden), sink.release()};
}

AttentionContext TransformerImpl::layers_context(int64_t length, const ModelInput& input,
                                                const ForwardOptions& options) const {
  auto diagonal = options.diagonal;
  if (diagonal.kind == DiagonalIntervention::Kind::None) diagonal = trained_diagonal(config_.diag_mode);
  const auto float_options = tok_emb->weight.options();
  auto context = attention_context(length, length, config_.causal, input.attention_mask, diagonal,
                                   config_.bird_eye && config_.diag_free_mask, float_options,
                                   config_.decoder.sliding_window);
  if (config_.positions == PositionKind::Rotary)
    std::tie(context.rotary_cos, context.rotary_sin) = rotary_tables(config_.rotary, length, float_options);
  return context;
}

torch::Tensor TransformerImpl::layer_attention(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                                               const ForwardOptions& options) {
  TORCH_CHECK(layer >= 0 && layer < config_.n_blocks, "layer ", layer, " of ", config_.n_blocks);
  return layers[layer]->as<TransformerBlock>()->probabilities(hidden, layers_context(hidden.size(1), input, options));
}

torch::Tensor TransformerImpl::output(const torch::Tensor& hidden, const ModelInput& input) {
  // Logits in float32 for a BF16 or F16 model: losses and accuracies are taken from them.
  auto logits = reduced_output(hidden, input);
  return logits.defined() ? logits.to(widened(logits.scalar_type())) : logits;
}

torch::Tensor TransformerImpl::reduced_output(const torch::Tensor& hidden, const ModelInput& input) {
  auto final_hidden = ln_f ? ln_f(hidden) : hidden;
  if (classifier && config_.pooling == Pooling::Mean) {
    // encoder_classifier: the mean of the unpadded final states, straight into the classifier.
    auto keep = input.attention_mask.defined()
                    ? input.attention_mask.to(final_hidden.device(), final_hidden.scalar_type()).unsqueeze(-1)
                    : torch::ones({final_hidden.size(0), final_hidden.size(1), 1}, final_hidden.options());
    auto pooled = (final_hidden * keep).sum(1) / keep.sum(1);                             // (B, d)
    return classifier(torch::dropout(pooled, config_.dropout, is_training()));            // (B, C)
  }
  if (classifier) {
    auto pooled = torch::tanh(pooler(final_hidden.select(1, 0)));                         // (B, d)
    return classifier(torch::dropout(pooled, config_.dropout, is_training()));            // (B, C)
  }
  if (!config_.is_language_model()) return {};
  return lm_head ? lm_head(final_hidden) : torch::linear(final_hidden, tok_emb->weight);  // (B, n, V)
}

ForwardResult forward_in_stages(AttentionModel& model, const ModelInput& input, const ForwardOptions& options) {
  auto layers_result = model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options);
  ForwardResult result;
  result.logits = model.output(layers_result.hidden, input);
  result.hidden = std::move(layers_result.hidden);
  result.attention = std::move(layers_result.attention);
  return result;
}

ForwardResult TransformerImpl::forward(const ModelInput& input, const ForwardOptions& options) {
  return forward_in_stages(*this, input, options);
}

std::shared_ptr<TransformerImpl> make_transformer(const ModelConfig& config, bool initialise) {
  return std::make_shared<TransformerImpl>(config, initialise);
}

}  // namespace aw
