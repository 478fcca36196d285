// models/nn/transformer.cpp — forward passes of the shared transformer (see transformer.h).
#include "models/nn/transformer.h"

#include "models/errors.h"
#include "models/nn/forward_hooks.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

constexpr double kInitStd = 0.02;

Dense make_linear(int64_t in, int64_t out, bool bias = true) { return Dense(in, out, bias); }

Norm make_norm(const ModelConfig& config) { return Norm(config.d_model, config.layer_norm_eps, config.decoder.norm); }

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
FeedForwardImpl::FeedForwardImpl(const ModelConfig& config) : activation_(config.activation) {
  const bool bias = config.decoder.mlp_bias;
  fc1 = register_module("fc1", make_linear(config.d_model, config.d_ff, bias));
  fc2 = register_module("fc2", make_linear(config.d_ff, config.d_model, bias));
  if (config.decoder.gated_mlp) gate = register_module("gate", make_linear(config.d_model, config.d_ff, bias));
}

torch::Tensor in_token_tiles(const torch::Tensor& x, int64_t per_token_bytes, int64_t memory_budget,
                             const std::function<torch::Tensor(const torch::Tensor&, int64_t)>& feed) {
  const int64_t tokens = x.dim() >= 2 ? x.size(-2) : 1;
  if (memory_budget <= 0 || tokens <= 1 || torch::GradMode::is_enabled()) return feed(x, 0);
  const int64_t per_token = x.numel() / (tokens * x.size(-1)) * per_token_bytes;
  if (tokens * per_token <= memory_budget) return feed(x, 0);
  const int64_t chunk = std::max<int64_t>(1, memory_budget / per_token);
  torch::Tensor out;
  for (int64_t first = 0; first < tokens; first += chunk) {
    const int64_t rows = std::min(chunk, tokens - first);
    auto fed = feed(x.narrow(-2, first, rows), first);
    if (!out.defined()) {
      auto shape = x.sizes().vec();
      shape.back() = fed.size(-1);
      out = torch::empty(shape, fed.options());
    }
    out.narrow(-2, first, rows).copy_(fed);
  }
  return out;
}

torch::Tensor FeedForwardImpl::forward(const torch::Tensor& x, int64_t memory_budget, const LayerHooks& hooks) {
  // Alive at once per token: the inner [d_ff] vectors of one expression (gate, its activation, fc1 and
  // their product for SwiGLU; fc1 and its activation otherwise).
  const int64_t per_token = fc1->weight.size(0) * (gate ? 4 : 2) * static_cast<int64_t>(x.element_size());
  return in_token_tiles(x, per_token, memory_budget,
                        [&](const torch::Tensor& rows, int64_t first) { return feed(rows, hooks, first); });
}

torch::Tensor FeedForwardImpl::feed(const torch::Tensor& x, const LayerHooks& hooks, int64_t first_token) {
  auto hidden = gate ? activate(gate(x), activation_) * fc1(x) : activate(fc1(x), activation_);
  return fc2(hooks.run(HookPoint::MlpAct, std::move(hidden), first_token));
}

// ---------------------------------------------------------------------------------------------
TransformerBlockImpl::TransformerBlockImpl(const ModelConfig& config, int64_t layer)
    : norm_(config.norm), parallel_residual_(config.decoder.parallel_residual), dropout_(config.dropout) {
  const auto& groups = config.decoder.query_groups;
  if (config.decoder.pre_norms) ln_1 = register_module("ln_1", make_norm(config));
  attn = register_module("attn", MultiHeadAttention(config, config.heads_per_block[layer],
                                                    groups.empty() ? std::vector<int64_t>{} : groups[layer]));
  if (config.decoder.post_norms) ln_attn_out = register_module("ln_attn_out", make_norm(config));
  if (config.decoder.pre_norms) ln_2 = register_module("ln_2", make_norm(config));
  if (config.moe.sparse_layer(layer)) moe = register_module("mlp", MixtureOfExperts(config));
  else mlp = register_module("mlp", FeedForward(config));
  if (config.decoder.post_norms) ln_mlp_out = register_module("ln_mlp_out", make_norm(config));
}

BlockOutput TransformerBlockImpl::forward(const torch::Tensor& input, const AttentionContext& context) {
  const bool training = is_training();
  const auto& hooks = context.hooks;
  const auto x = hooks.run(HookPoint::ResidPre, input);
  auto attend = [&](const torch::Tensor& in) { return attn(hooks.run(HookPoint::AttnIn, in), context).output; };
  auto feed = [&](const torch::Tensor& in) {
    const auto x = hooks.run(HookPoint::MlpIn, in);
    return moe ? moe(x, context.memory_budget, hooks) : mlp(x, context.memory_budget, hooks);
  };
  if (parallel_residual_) {  // GPT-NeoX: both sublayers read x
    auto attended = hooks.run(HookPoint::AttnOut, attend(ln_1(x)));
    auto fed = hooks.run(HookPoint::MlpOut, torch::dropout(feed(ln_2(x)), dropout_, training));
    auto h = residual_rows(x, attended) + torch::dropout(attended, dropout_, training);
    return {hooks.run(HookPoint::ResidPost, h + residual_rows(fed, attended))};
  }
  if (norm_ == NormPlacement::Pre) {
    // Norms before each sublayer (GPT-2, Llama), after it (OLMo 2), or both (Gemma 2/3).
    auto normed = [](Norm& norm, const torch::Tensor& t) { return norm ? norm(t) : t; };
    auto attended = attend(normed(ln_1, x));
    auto written = hooks.run(HookPoint::AttnOut, torch::dropout(normed(ln_attn_out, attended), dropout_, training));
    auto h = hooks.run(HookPoint::ResidMid, residual_rows(x, attended) + written);
    auto fed = hooks.run(HookPoint::MlpOut, torch::dropout(normed(ln_mlp_out, feed(normed(ln_2, h))), dropout_, training));
    return {hooks.run(HookPoint::ResidPost, h + fed)};
  }
  auto attended = hooks.run(HookPoint::AttnOut, torch::dropout(attend(x), dropout_, training));
  auto h = hooks.run(HookPoint::ResidMid, ln_1(residual_rows(x, attended) + attended));
  auto fed = hooks.run(HookPoint::MlpOut, torch::dropout(feed(h), dropout_, training));
  return {hooks.run(HookPoint::ResidPost, ln_2(h + fed))};
}

void TransformerBlockImpl::probabilities(const torch::Tensor& x, const AttentionContext& context,
                                         const TileConsumer& tiles) {
  attn->probabilities(norm_ == NormPlacement::Pre && ln_1 ? ln_1(x) : x, context, tiles);
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
  // Gemma: × √d as a scalar of the model's dtype (in BF16 √2304 = 48 becomes 48, √3072 55.5).
  if (config_.decoder.embedding_scale != 1)
    hidden = hidden * torch::scalar_tensor(config_.decoder.embedding_scale, hidden.options());
  if (pos_emb) hidden = hidden + pos_emb(torch::arange(length, torch::dtype(torch::kLong).device(device))).unsqueeze(0);
  else if (sinusoid_.defined()) hidden = hidden + sinusoid_.narrow(0, 0, length).unsqueeze(0);
  if (type_emb) {
    auto types = input.token_type_ids.defined() ? input.token_type_ids.to(device) : torch::zeros_like(ids);
    hidden = hidden + type_emb(types);
  }
  if (emb_ln) hidden = emb_ln(hidden);
  return torch::dropout(hidden, config_.dropout, is_training());
}

std::vector<torch::Tensor> TransformerImpl::layer_gates(const torch::Tensor& gates) const {
  if (!gates.defined()) return {};
  std::vector<torch::Tensor> layers;
  for (int64_t layer = 0; layer < config_.n_blocks; ++layer) {
    const int64_t heads = config_.heads_per_block[layer];
    layers.push_back(gates.dim() == 2 ? gates.select(0, layer).narrow(0, 0, heads).view({1, heads})
                                      : gates.select(1, layer).narrow(1, 0, heads));         // (k·B|1, H)
  }
  return layers;
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
  // One context for every layer, or (Gemma 2/3) one for the sliding layers and one for the others.
  const auto& decoder = config_.decoder;
  std::vector<AttentionContext> contexts = {
      layers_context(length, input, options, decoder.sliding_layers.empty() && decoder.sliding_window > 0)};
  if (!decoder.sliding_layers.empty()) contexts.push_back(layers_context(length, input, options, true));
  auto context_of = [&](int64_t layer) -> AttentionContext& {
    return contexts.size() > 1 && decoder.sliding_layer(layer) ? contexts.back() : contexts.front();
  };
  // A budget too small for one row fails here, before any layer has run: rows split by k gate
  // settings (k·B) are the widest a layer sees.
  check_memory_budget(contexts.front().memory_budget, gates.defined() && gates.dim() == 3 ? gates.size(0) : batch,
                      config_.max_heads(), length, hidden.scalar_type());
  AttentionSink sink(options);
  const auto hooks = forward_hooks(layer_gates(gates), options.hooks, sink, first_layer, end_layer);
  for (int64_t layer = first_layer; layer < end_layer; ++layer) {
    const int64_t rows = hidden.size(0);
    auto& context = context_of(layer);
    if (!hooks.empty()) context.hooks = {&hooks, layer};
    auto block = layers[layer]->as<TransformerBlock>()->forward(hidden, context);
    hidden = std::move(block.hidden);
    // After the first gated layer the rows may have multiplied (k settings): so do the padding masks.
    if (hidden.size(0) != rows)
      for (auto& each : contexts) each.follow_rows(hidden.size(0));
    sink.end_layer(layer);
  }
  return {std::move(hidden), sink.release()};
}

AttentionContext TransformerImpl::layers_context(int64_t length, const ModelInput& input, const ForwardOptions& options,
                                                bool sliding) const {
  auto diagonal = options.diagonal;
  if (diagonal.kind == DiagonalIntervention::Kind::None) diagonal = trained_diagonal(config_.diag_mode);
  const auto float_options = tok_emb->weight.options();
  // Any scaled diagonal, ×1 included, lifts BET(SF)'s own diagonal-free mask so the factor reaches the
  // diagonal: a sweep's ×1 on a masked model is the sweep's formula at 1 (plain attention, same weights),
  // not the model as trained, which is the sweep's baseline row. "mask" and none keep the trained mask.
  const bool scaled = options.diagonal.kind == DiagonalIntervention::Kind::Scale;
  auto context = attention_context(length, length, config_.causal, input.attention_mask, diagonal,
                                   config_.bird_eye && config_.diag_free_mask && !scaled, float_options,
                                   sliding ? config_.decoder.sliding_window : 0, resolved_memory_budget(options));
  context.fused = !options.explicit_attention;
  const auto& rotary = sliding && config_.decoder.sliding_rotary.dims > 0 ? config_.decoder.sliding_rotary : config_.rotary;
  if (config_.positions == PositionKind::Rotary)
    std::tie(context.rotary_cos, context.rotary_sin) = rotary_tables(rotary, length, float_options);
  return context;
}

void TransformerImpl::layer_attention_tiles(const torch::Tensor& hidden, const ModelInput& input, int64_t layer,
                                            const ForwardOptions& options, const TileConsumer& tiles,
                                            int64_t first_row, int64_t end_row) {
  TORCH_CHECK(layer >= 0 && layer < config_.n_blocks, "layer ", layer, " of ", config_.n_blocks);
  auto context = layers_context(hidden.size(1), input, options, config_.decoder.sliding_layer(layer));
  if (first_row < 0 || end_row > context.queries || (end_row >= 0 && end_row <= first_row))
    throw Error("rows " + std::to_string(first_row + 1) + "-" + std::to_string(end_row) + " are outside the " +
                std::to_string(context.queries) + " tokens");
  context.first_row = first_row;
  context.end_row = end_row;
  layers[layer]->as<TransformerBlock>()->probabilities(hidden, context, tiles);
}

torch::Tensor TransformerImpl::output(const torch::Tensor& hidden, const ModelInput& input) {
  // Logits in float32 for a BF16 or F16 model: losses and accuracies are taken from them.
  auto logits = reduced_output(hidden, input);
  return logits.defined() ? logits.to(widened(logits.scalar_type())) : logits;
}

torch::Tensor TransformerImpl::hooked_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks& hooks) {
  auto logits = reduced_output(hidden, input, &hooks);
  return logits.defined() ? logits.to(widened(logits.scalar_type())) : logits;
}

torch::Tensor TransformerImpl::reduced_output(const torch::Tensor& hidden, const ModelInput& input, const Hooks* hooks) {
  const LayerHooks final_hooks{hooks, -1};
  auto final_hidden = ln_f ? final_hooks.run(HookPoint::FinalNorm, ln_f(hidden)) : hidden;
  if (classifier && config_.pooling == Pooling::Mean) {
    // encoder_classifier: the mean of the unpadded final states, straight into the classifier.
    auto keep = input.attention_mask.defined()
                    ? input.attention_mask.to(final_hidden.device(), final_hidden.scalar_type()).unsqueeze(-1)
                    : torch::ones({final_hidden.size(0), final_hidden.size(1), 1}, final_hidden.options());
    auto pooled = (final_hidden * keep).sum(1) / keep.sum(1);                             // (B, d)
    return final_hooks.run(HookPoint::Logits, classifier(torch::dropout(pooled, config_.dropout, is_training())));  // (B, C)
  }
  if (classifier) {
    auto pooled = torch::tanh(pooler(final_hidden.select(1, 0)));                         // (B, d)
    return final_hooks.run(HookPoint::Logits, classifier(torch::dropout(pooled, config_.dropout, is_training())));  // (B, C)
  }
  if (!config_.is_language_model()) return {};
  auto logits = lm_head ? lm_head(final_hidden) : torch::linear(final_hidden, tok_emb->weight);  // (B, n, V)
  const double cap = config_.decoder.final_softcap;
  return final_hooks.run(HookPoint::Logits, cap > 0 ? torch::tanh(logits / cap) * cap : logits);  // Gemma 2
}

std::vector<HookPoint> TransformerImpl::hook_points() const {
  std::vector<HookPoint> points;
  for (int i = 0; i < kHookPointCount; ++i) {
    const auto point = static_cast<HookPoint>(i);
    if (point == HookPoint::ResidMid && config_.decoder.parallel_residual) continue;  // both sublayers read resid_pre
    if (point == HookPoint::FinalNorm && !ln_f) continue;
    if (point == HookPoint::Router && config_.moe.experts == 0) continue;
    if (point == HookPoint::Logits && !config_.is_language_model() && !classifier) continue;
    points.push_back(point);
  }
  return points;
}

std::vector<HookAddress> TransformerImpl::hook_addresses() const {
  auto addresses = AttentionModel::hook_addresses();
  if (config_.moe.experts == 0) return addresses;
  // A sparse layer has a router and no single hidden activation; a dense one the reverse (qwen3_moe).
  addresses.erase(std::remove_if(addresses.begin(), addresses.end(),
                                 [&](const HookAddress& address) {
                                   const bool sparse = address.layer >= 0 && config_.moe.sparse_layer(address.layer);
                                   return (address.point == HookPoint::Router && !sparse) ||
                                          (address.point == HookPoint::MlpAct && sparse);
                                 }),
                  addresses.end());
  return addresses;
}

torch::Tensor TransformerImpl::head_writes(int64_t layer, const torch::Tensor& contexts) {
  return layers[layer]->as<TransformerBlock>()->attn->head_writes(contexts);
}

namespace {

// The unembedding [V, d]: the LM head's, or the token embeddings where they are tied.
const torch::Tensor& unembedding_of(const TransformerImpl& model) {
  return model.lm_head ? model.lm_head->weight : model.tok_emb->weight;
}

}  // namespace

torch::Tensor TransformerImpl::normed_writes(const torch::Tensor& residual, const torch::Tensor& writes) {
  if (!ln_f || !config_.is_language_model())
    throw Error("direct logit attribution needs a pre-norm language model (a final norm before the unembedding); "
                "this is " + std::string(config_.is_language_model() ? "a post-norm one" : "not a language model"));
  if (config_.decoder.post_norms || config_.decoder.final_softcap > 0)
    throw Error("direct logit attribution needs each head's write to reach the logits through the final norm "
                "alone; a " + config_.family_name() + " model normalises the attention's output or soft-caps its logits");
  return ln_f->linearised(residual.unsqueeze(1), writes);                                    // (B, K, d)
}

torch::Tensor TransformerImpl::direct_logits(const torch::Tensor& residual, const torch::Tensor& writes,
                                             const torch::Tensor& tokens) {
  const auto normed = normed_writes(residual, writes);                                       // (B, K, d)
  const auto& unembedding = unembedding_of(*this);                                             // (V, d)
  const auto rows = unembedding.index_select(0, tokens.reshape({-1})).view({tokens.size(0), tokens.size(1), -1});
  return torch::matmul(normed, rows.to(normed.scalar_type()).transpose(1, 2));               // (B, K, T)
}

torch::Tensor TransformerImpl::direct_vocabulary_logits(const torch::Tensor& residual, const torch::Tensor& writes) {
  const auto normed = normed_writes(residual, writes);                                       // (B, K, d)
  const auto& unembedding = unembedding_of(*this);                                             // (V, d)
  // In the unembedding's own dtype, as the model's logits are (a widened copy of V × d per call would
  // outweigh the product at a 128k vocabulary).
  return torch::matmul(normed.to(unembedding.scalar_type()), unembedding.t()).to(normed.scalar_type());  // (B, K, V)
}

std::function<torch::Tensor(const torch::Tensor&)> TransformerImpl::logit_expectation(const torch::Tensor& weights) {
  const auto& unembedding = unembedding_of(*this);                                             // (V, d)
  const auto dtype = unembedding.scalar_type();
  if (!config_.is_language_model() || classifier || config_.decoder.final_softcap > 0 ||
      (dtype != torch::kFloat32 && dtype != torch::kFloat64))
    return {};
  const auto mixed = torch::matmul(weights.to(dtype), unembedding);                          // (P, d)
  torch::Tensor constant;                                                                     // (P)
  if (lm_head && lm_head->bias.defined()) constant = torch::mv(weights.to(dtype), lm_head->bias);
  return [this, mixed, constant](const torch::Tensor& hidden) {
    const auto normed = ln_f ? ln_f(hidden) : hidden;                                         // (1, P, d)
    auto expected = (normed.reshape({-1, normed.size(-1)}).to(mixed.scalar_type()) * mixed).sum(-1);
    if (constant.defined()) expected = expected + constant;
    return expected.to(torch::kFloat32);
  };
}

AttentionModel::VocabularyLogits TransformerImpl::vocabulary_logits(const torch::Tensor& states) {
  if (!config_.is_language_model() || classifier) return {};
  const auto normed = (ln_f ? ln_f(states) : states).reshape({-1, states.size(-1)});           // (P, d)
  const auto& unembedding = unembedding_of(*this);                                             // (V, d)
  const auto bias = lm_head && lm_head->bias.defined() ? lm_head->bias : torch::Tensor();
  const double cap = config_.decoder.final_softcap;
  // As reduced_output and output(): the product in the unembedding's dtype, capped there, widened.
  const auto finish = [cap](torch::Tensor logits) {
    if (cap > 0) logits = torch::tanh(logits / cap) * cap;
    return logits.to(torch::kFloat32);
  };
  VocabularyLogits logits;
  logits.vocabulary = unembedding.size(0);
  logits.slice = [normed, unembedding, bias, finish](int64_t first, int64_t count) {
    return finish(torch::linear(normed, unembedding.narrow(0, first, count),
                                bias.defined() ? bias.narrow(0, first, count) : torch::Tensor()));
  };
  logits.own = [normed, unembedding, bias, finish](const torch::Tensor& tokens) {
    const auto rows = unembedding.index_select(0, tokens);                                     // (P, d)
    auto own = (normed.to(torch::kFloat32) * rows.to(torch::kFloat32)).sum(-1);
    if (bias.defined()) own = own + bias.index_select(0, tokens).to(torch::kFloat32);
    return finish(own.to(unembedding.scalar_type()));
  };
  return logits;
}

torch::Tensor AttentionModel::direct_vocabulary_logits(const torch::Tensor& residual, const torch::Tensor& writes) {
  return direct_logits(residual, writes, torch::Tensor());  // the family's refusal
}

torch::Tensor AttentionModel::head_writes(int64_t /*layer*/, const torch::Tensor& /*contexts*/) {
  throw Error("a " + config().family_name() + " model has no per-head writes into a residual stream here");
}

torch::Tensor AttentionModel::direct_logits(const torch::Tensor& /*residual*/, const torch::Tensor& /*writes*/,
                                            const torch::Tensor& /*tokens*/) {
  throw Error("a " + config().family_name() + " model has no direct path from a head to the logits here");
}

ForwardResult forward_in_stages(AttentionModel& model, const ModelInput& input, const ForwardOptions& options) {
  auto layers_result = model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options);
  ForwardResult result;
  result.logits = options.hooks.empty() ? model.output(layers_result.hidden, input)
                                        : model.hooked_output(layers_result.hidden, input, options.hooks);
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
