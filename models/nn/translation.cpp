// models/nn/translation.cpp — forward passes of the encoder–decoder Transformer (see translation.h).
#include "models/nn/translation.h"

#include "models/attention_kind.h"
#include "models/errors.h"
#include "models/nn/forward_hooks.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

torch::nn::LayerNorm make_layer_norm(const ModelConfig& config) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({config.d_model}).eps(config.layer_norm_eps));
}

// The encoder side's and the decoder side's own config: head width, feed-forward width and whether
// the self-attention is BET(SF)'s. Blocks and attention modules read these fields only.
ModelConfig encoder_side(const ModelConfig& config) {
  auto side = config;
  side.d_ff = config.translation.encoder_ffn;
  side.bird_eye = false;
  side.causal = false;
  return side;
}

ModelConfig decoder_side(const ModelConfig& config) {
  auto side = config;
  side.d_ff = config.translation.decoder_ffn;
  side.d_head = config.translation.decoder_d_head;
  side.bird_eye = config.translation.decoder_bird_eye;
  side.causal = true;
  return side;
}

void check_length(int64_t length, int64_t positions, const char* side) {
  if (length > positions)
    throw Error(std::string(side) + " has " + std::to_string(length) + " tokens; the model has " +
                std::to_string(positions) + " positions");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
DecoderBlockImpl::DecoderBlockImpl(const ModelConfig& decoder, int64_t self_heads, int64_t cross_heads)
    : norm_(decoder.norm), dropout_(decoder.dropout) {
  auto cross = decoder;
  cross.bird_eye = false;
  ln_1 = register_module("ln_1", make_layer_norm(decoder));
  self_attn = register_module("self_attn", MultiHeadAttention(decoder, self_heads));
  ln_2 = register_module("ln_2", make_layer_norm(decoder));
  cross_attn = register_module("cross_attn", MultiHeadAttention(cross, cross_heads));
  ln_3 = register_module("ln_3", make_layer_norm(decoder));
  mlp = register_module("mlp", FeedForward(decoder));
}

DecoderBlockOutput DecoderBlockImpl::forward(const torch::Tensor& input, const torch::Tensor& memory,
                                             const AttentionContext& self_context,
                                             const AttentionContext& cross_context) {
  const bool training = is_training();
  auto drop = [&](const torch::Tensor& t) { return torch::dropout(t, dropout_, training); };
  // The self-attention's points at its block; the cross-attention's, and the layer's MLP and output
  // after it, at the cross block's (hook_addresses names them dec.… and cross.…).
  const auto& own = self_context.hooks;
  const auto& crossing = cross_context.hooks;
  auto attend = [&](const torch::Tensor& in) { return self_attn(own.run(HookPoint::AttnIn, in), self_context).output; };
  auto cross = [&](const torch::Tensor& in) {
    return cross_attn(crossing.run(HookPoint::AttnIn, in), cross_context, memory).output;
  };
  auto feed = [&](const torch::Tensor& in) {
    return mlp(crossing.run(HookPoint::MlpIn, in), cross_context.memory_budget, crossing);
  };
  const auto x = own.run(HookPoint::ResidPre, input);
  if (norm_ == NormPlacement::Pre) {
    auto attended = attend(ln_1(x));
    auto written = own.run(HookPoint::AttnOut, drop(attended));
    auto h = own.run(HookPoint::ResidMid, residual_rows(x, attended) + written);
    auto crossed = cross(ln_2(h));
    written = crossing.run(HookPoint::AttnOut, drop(crossed));
    h = crossing.run(HookPoint::ResidMid, residual_rows(h, crossed) + written);
    auto fed = crossing.run(HookPoint::MlpOut, drop(feed(ln_3(h))));
    return {crossing.run(HookPoint::ResidPost, h + fed)};
  }
  auto attended = own.run(HookPoint::AttnOut, drop(attend(x)));
  auto h = own.run(HookPoint::ResidMid, ln_1(residual_rows(x, attended) + attended));
  auto crossed = crossing.run(HookPoint::AttnOut, drop(cross(h)));
  h = crossing.run(HookPoint::ResidMid, ln_2(residual_rows(h, crossed) + crossed));
  auto fed = crossing.run(HookPoint::MlpOut, drop(feed(h)));
  return {crossing.run(HookPoint::ResidPost, ln_3(h + fed))};
}

// ---------------------------------------------------------------------------------------------
TranslationTransformerImpl::TranslationTransformerImpl(ModelConfig config, bool initialise)
    : config_(std::move(config)) {
  const auto& c = config_;
  const auto& t = c.translation;
  TORCH_CHECK(c.is_translation(), "TranslationTransformer needs a translation config");
  tok_emb = register_module("tok_emb", Lookup(c.vocab_size, c.d_model));
  if (!t.share_embeddings) tgt_emb = register_module("tgt_emb", Lookup(t.target_vocab_size, c.d_model));
  if (c.positions == PositionKind::Learned) {
    enc_pos = register_module("enc_pos", Lookup(c.max_positions + t.position_offset, c.d_model));
    dec_pos = register_module("dec_pos", Lookup(c.max_positions + t.position_offset, c.d_model));
  } else {
    sinusoid_ = register_buffer("sinusoid", sinusoid_table(c.max_positions, c.d_model, t.split_sinusoid));
  }
  if (t.embedding_norm) {
    enc_emb_ln = register_module("enc_emb_ln", make_layer_norm(c));
    dec_emb_ln = register_module("dec_emb_ln", make_layer_norm(c));
  }
  const auto encoder_config = encoder_side(c), decoder_config = decoder_side(c);
  encoder = register_module("encoder", torch::nn::ModuleList());
  for (int64_t layer = 0; layer < t.encoder_layers; ++layer)
    encoder->push_back(TransformerBlock(encoder_config, layer));  // encoder blocks come first
  decoder = register_module("decoder", torch::nn::ModuleList());
  for (int64_t layer = 0; layer < t.decoder_layers; ++layer)
    decoder->push_back(DecoderBlock(decoder_config, c.heads_per_block[c.block_index(AttentionKind::Decoder, layer)],
                                    c.heads_per_block[c.block_index(AttentionKind::Cross, layer)]));
  if (t.final_norm) {
    enc_ln_f = register_module("enc_ln_f", make_layer_norm(c));
    dec_ln_f = register_module("dec_ln_f", make_layer_norm(c));
  }
  if (!c.tie_embeddings) lm_head = register_module("lm_head", Dense(c.d_model, t.target_vocab_size, /*bias=*/false));
  if (t.final_logits_bias) final_logits_bias = register_parameter("final_logits_bias", torch::zeros({1, t.target_vocab_size}));
  if (initialise) initialise_weights(*this);
}

const torch::Tensor& TranslationTransformerImpl::target_table() const {
  return tgt_emb ? tgt_emb->weight : tok_emb->weight;
}

double TranslationTransformerImpl::embedding_scale() const {
  return config_.translation.scale_embedding ? std::sqrt(static_cast<double>(config_.d_model)) : 1.0;
}

torch::Tensor TranslationTransformerImpl::embed(const ModelInput& input) {
  TORCH_CHECK(input.input_ids.dim() == 2, "input_ids must be [B, n]");
  const int64_t length = input.input_ids.size(1);
  check_length(length, config_.max_positions, "the source");
  const auto device = tok_emb->weight.device();
  auto hidden = tok_emb(input.input_ids.to(device)) * embedding_scale();                  // (B, n, d)
  const auto positions = torch::arange(length, torch::dtype(torch::kLong).device(device));
  hidden = hidden + (enc_pos ? enc_pos(positions + config_.translation.position_offset)
                             : sinusoid_.narrow(0, 0, length)).unsqueeze(0);
  if (enc_emb_ln) hidden = enc_emb_ln(hidden);
  return torch::dropout(hidden, config_.dropout, is_training());
}

torch::Tensor TranslationTransformerImpl::embed_target(const torch::Tensor& ids) {
  TORCH_CHECK(ids.dim() == 2, "decoder_input_ids must be [B, m]");
  const int64_t length = ids.size(1);
  check_length(length, config_.max_positions, "the target");
  const auto device = tok_emb->weight.device();
  auto hidden = torch::embedding(target_table(), ids.to(device)) * embedding_scale();    // (B, m, d)
  const auto positions = torch::arange(length, torch::dtype(torch::kLong).device(device));
  hidden = hidden + (dec_pos ? dec_pos(positions + config_.translation.position_offset)
                             : sinusoid_.narrow(0, 0, length)).unsqueeze(0);
  if (dec_emb_ln) hidden = dec_emb_ln(hidden);
  return torch::dropout(hidden, config_.dropout, is_training());
}

torch::Tensor TranslationTransformerImpl::checked_gates(const ForwardOptions& options, int64_t rows,
                                                        const torch::Tensor& like) const {
  if (!options.head_gates.defined()) return {};
  auto gates = options.head_gates.to(like.device(), like.scalar_type());
  const bool blocks_ok =
      gates.dim() >= 2 && gates.size(-2) == config_.n_blocks && gates.size(-1) == config_.max_heads();
  const bool rows_ok = gates.dim() == 2 || (gates.dim() == 3 && (gates.size(0) == 1 || gates.size(0) % rows == 0));
  if (!blocks_ok || !rows_ok)
    throw Error("head gates have shape " + shape_string(gates.sizes()) + "; expected [" +
                std::to_string(config_.n_blocks) + ", " + std::to_string(config_.max_heads()) + "] or [k·" +
                std::to_string(rows) + ", " + std::to_string(config_.n_blocks) + ", " +
                std::to_string(config_.max_heads()) + "] (blocks: encoder, then each decoder layer's self and cross)");
  return gates;
}

std::vector<torch::Tensor> TranslationTransformerImpl::call_gates(const torch::Tensor& gates, int64_t first_block,
                                                                  int64_t rows) const {
  if (!gates.defined()) return {};
  std::vector<torch::Tensor> blocks;
  for (int64_t block = 0; block < config_.n_blocks; ++block) {
    const int64_t heads = config_.heads_per_block[block];
    blocks.push_back(gates.dim() == 2 ? gates.select(0, block).narrow(0, 0, heads).view({1, heads})
                                      : gates.select(1, block).narrow(1, 0, heads));       // (k·B|1, H)
  }
  // A call that starts at a cross block: the self-attention below it has the settings' common gates
  // (the k·B rows' first B), so the rows split at the cross-attention, not before.
  if (first_block < config_.n_blocks && config_.attention_block(first_block).kind == AttentionKind::Cross) {
    auto& self_gates = blocks[config_.block_index(AttentionKind::Decoder, decoder_stage(first_block))];
    if (self_gates.size(0) > rows) self_gates = self_gates.narrow(0, 0, rows);
  }
  return blocks;
}

int64_t TranslationTransformerImpl::decoder_stage(int64_t block) const {
  if (block >= config_.n_blocks) return config_.translation.decoder_layers;
  return std::max<int64_t>(0, block - config_.translation.encoder_layers) / 2;
}

torch::Tensor TranslationTransformerImpl::run_encoder(torch::Tensor hidden, const ModelInput& input, int64_t first,
                                                      int64_t end, const Hooks& hooks,
                                                      const ForwardOptions& options, AttentionSink& sink) {
  const int64_t length = hidden.size(1);
  auto context = attention_context(length, length, /*causal=*/false, input.attention_mask,
                                   DiagonalIntervention::none(), false, tok_emb->weight.options(), 0,
                                   resolved_memory_budget(options));
  context.fused = !options.explicit_attention;
  for (int64_t layer = first; layer < end; ++layer) {
    const int64_t rows = hidden.size(0);
    if (!hooks.empty()) context.hooks = {&hooks, layer};
    auto block = encoder[layer]->as<TransformerBlock>()->forward(hidden, context);
    hidden = std::move(block.hidden);
    if (hidden.size(0) != rows) context.follow_rows(hidden.size(0));  // k gate settings split the rows
    sink.end_layer(layer);
  }
  return hidden;
}

torch::Tensor TranslationTransformerImpl::run_decoder(const torch::Tensor& memory, torch::Tensor target,
                                                      const ModelInput& input, int64_t first_block, int64_t end_layer,
                                                      const std::vector<torch::Tensor>& gates, const Hooks& hooks,
                                                      const ForwardOptions& options, AttentionSink& sink) {
  const auto& t = config_.translation;
  const int64_t first_layer = decoder_stage(first_block);
  const int64_t target_length = target.size(1), source_length = memory.size(1);
  // Source and target masks follow the rows of the target (a caller may have repeated them k times).
  auto rows_of = [&](const torch::Tensor& mask) {
    if (!mask.defined() || mask.size(0) == target.size(0)) return mask;
    return mask.repeat({target.size(0) / mask.size(0), 1});
  };
  auto resolved = options.diagonal;
  const auto budget = resolved_memory_budget(options);
  if (resolved.kind == DiagonalIntervention::Kind::None) resolved = trained_diagonal(config_.diag_mode);
  // As in the language model: any swept factor, ×1 included, lifts the decoder's own diagonal-free mask
  // (×1 is the sweep's formula at 1; the model as trained is the sweep's baseline row).
  const bool scaled = options.diagonal.kind == DiagonalIntervention::Kind::Scale;
  auto self_context = attention_context(target_length, target_length, /*causal=*/true,
                                        rows_of(input.decoder_attention_mask), resolved,
                                        t.decoder_bird_eye && t.decoder_diag_free_mask && !scaled,
                                        tok_emb->weight.options(), 0,
                                        budget);
  auto cross_context = attention_context(target_length, source_length, /*causal=*/false,
                                         rows_of(input.attention_mask), DiagonalIntervention::none(), false,
                                         tok_emb->weight.options(), 0, budget);
  self_context.fused = cross_context.fused = !options.explicit_attention;
  for (int64_t layer = first_layer; layer < end_layer; ++layer) {
    const auto self_block = config_.block_index(AttentionKind::Decoder, layer);
    const auto cross_block = config_.block_index(AttentionKind::Cross, layer);
    const int64_t rows = target.size(0);
    // Rows split at the self-attention reach the cross-attention k·B strong: its masks follow first.
    if (!gates.empty() && gates[self_block].size(0) > rows) cross_context.follow_rows(gates[self_block].size(0));
    if (!hooks.empty()) self_context.hooks = {&hooks, self_block}, cross_context.hooks = {&hooks, cross_block};
    auto block = decoder[layer]->as<DecoderBlock>()->forward(target, memory, self_context, cross_context);
    target = std::move(block.hidden);
    if (target.size(0) != rows) {  // k gate settings split the rows: the padding masks follow
      self_context.follow_rows(target.size(0));
      cross_context.follow_rows(target.size(0));
    }
    sink.end_layer(self_block);
    sink.end_layer(cross_block);
  }
  return target;
}

LayersResult TranslationTransformerImpl::run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_block,
                                                    int64_t end_block, const ForwardOptions& options) {
  const auto& t = config_.translation;
  if (first_block >= end_block) return {std::move(hidden), {}};  // nothing to run: the stage is unchanged
  if (!input.decoder_input_ids.defined() && end_block > t.encoder_layers)
    throw Error("a translation model's decoder needs target ids (decoder_input_ids)");
  const auto gates = call_gates(checked_gates(options, hidden.size(0), hidden), first_block, hidden.size(0));
  AttentionSink sink(options);
  const auto hooks = forward_hooks(gates, options.hooks, sink, first_block, end_block);
  torch::Tensor memory, target;
  int64_t decoder_first_block = t.encoder_layers;
  if (first_block < t.encoder_layers) {
    hidden = run_encoder(std::move(hidden), input, first_block, std::min(end_block, t.encoder_layers), hooks, options,
                         sink);
    if (end_block < t.encoder_layers) return {std::move(hidden), sink.release()};
    if (!input.decoder_input_ids.defined()) {  // the encoder alone (an encoder's activations): its state
      if (hooks.has(HookPoint::FinalNorm, t.encoder_layers - 1)) encoder_output(hidden, hooks);
      return {std::move(hidden), sink.release()};
    }
    memory = encoder_output(hidden, hooks);
    target = embed_target(input.decoder_input_ids);
    if (target.size(0) != memory.size(0)) target = target.repeat({memory.size(0) / target.size(0), 1, 1});
  } else {
    const int64_t source_length = input.input_ids.size(1);
    memory = hidden.narrow(1, 0, source_length);
    target = hidden.narrow(1, source_length, hidden.size(1) - source_length);
    decoder_first_block = first_block;
  }
  const int64_t end_layer = decoder_stage(end_block);
  target = run_decoder(memory, std::move(target), input, decoder_first_block, end_layer, gates, hooks, options, sink);
  if (end_block >= config_.n_blocks) return {std::move(target), sink.release()};
  if (memory.size(0) != target.size(0)) memory = memory.repeat({target.size(0) / memory.size(0), 1, 1});
  return {torch::cat({memory, target}, 1), sink.release()};
}

torch::Tensor TranslationTransformerImpl::encoder_output(const torch::Tensor& hidden, const Hooks& hooks) {
  if (!enc_ln_f) return hidden;
  // The encoder's final norm is read at its last block (−1 is the decoder's, after every block).
  return LayerHooks{hooks.empty() ? nullptr : &hooks, config_.translation.encoder_layers - 1}.run(HookPoint::FinalNorm,
                                                                                               enc_ln_f(hidden));
}

torch::Tensor TranslationTransformerImpl::output(const torch::Tensor& hidden, const ModelInput& input) {
  return hooked_output(hidden, input, Hooks());
}

torch::Tensor TranslationTransformerImpl::hooked_output(const torch::Tensor& hidden, const ModelInput& /*input*/,
                                                        const Hooks& hooks) {
  const LayerHooks final_hooks{hooks.empty() ? nullptr : &hooks, -1};
  const auto final_hidden = dec_ln_f ? final_hooks.run(HookPoint::FinalNorm, dec_ln_f(hidden)) : hidden;
  auto logits = lm_head ? lm_head(final_hidden) : torch::linear(final_hidden, target_table());  // (B, m, V)
  if (final_logits_bias.defined()) logits = logits + final_logits_bias;
  return final_hooks.run(HookPoint::Logits, logits);
}

std::vector<HookPoint> TranslationTransformerImpl::hook_points() const {
  std::vector<HookPoint> points;
  for (int i = 0; i < kHookPointCount; ++i) {
    const auto point = static_cast<HookPoint>(i);
    if (point != HookPoint::FinalNorm || enc_ln_f) points.push_back(point);
  }
  return points;
}

std::vector<HookAddress> TranslationTransformerImpl::hook_addresses() const {
  const auto& t = config_.translation;
  const auto enc = to_string(AttentionKind::Encoder), dec = to_string(AttentionKind::Decoder),
             cross = to_string(AttentionKind::Cross);
  std::vector<HookAddress> addresses;
  auto add = [&](HookPoint first, HookPoint last, int64_t block, const std::string& group, int64_t layer) {
    for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i)
      if (static_cast<HookPoint>(i) != HookPoint::Router)  // no experts in these models
        addresses.push_back({static_cast<HookPoint>(i), block, group, layer});
  };
  for (int64_t layer = 0; layer < t.encoder_layers; ++layer)
    add(HookPoint::ResidPre, HookPoint::ResidPost, layer, enc, layer);
  if (enc_ln_f) addresses.push_back({HookPoint::FinalNorm, t.encoder_layers - 1, enc, -1});
  for (int64_t layer = 0; layer < t.decoder_layers; ++layer) {
    const auto self_block = config_.block_index(AttentionKind::Decoder, layer);
    const auto cross_block = config_.block_index(AttentionKind::Cross, layer);
    add(HookPoint::ResidPre, HookPoint::ResidMid, self_block, dec, layer);
    add(HookPoint::AttnIn, HookPoint::ResidMid, cross_block, cross, layer);
    add(HookPoint::MlpIn, HookPoint::ResidPost, cross_block, dec, layer);  // after the cross-attention
  }
  if (dec_ln_f) addresses.push_back({HookPoint::FinalNorm, -1, dec, -1});
  addresses.push_back({HookPoint::Logits, -1, "", -1});
  return addresses;
}

ForwardResult TranslationTransformerImpl::forward(const ModelInput& input, const ForwardOptions& options) {
  return forward_in_stages(*this, input, options);
}

LayersResult TranslationTransformerImpl::encode(const ModelInput& input, const ForwardOptions& options) {
  auto hidden = embed(input);
  const auto gates = call_gates(checked_gates(options, hidden.size(0), hidden), 0, hidden.size(0));
  AttentionSink sink(options);
  const auto hooks = forward_hooks(gates, options.hooks, sink, 0, config_.translation.encoder_layers);
  hidden = run_encoder(std::move(hidden), input, 0, config_.translation.encoder_layers, hooks, options, sink);
  return {encoder_output(hidden, hooks), sink.release()};
}

ForwardResult TranslationTransformerImpl::decode(const torch::Tensor& memory, const ModelInput& input,
                                                 const ForwardOptions& options) {
  auto target = embed_target(input.decoder_input_ids);
  auto source = memory;
  if (source.size(0) != target.size(0)) source = source.repeat({target.size(0) / source.size(0), 1, 1});
  const auto& t = config_.translation;
  const auto gates = call_gates(checked_gates(options, target.size(0), target), t.encoder_layers, target.size(0));
  AttentionSink sink(options);
  const auto hooks = forward_hooks(gates, options.hooks, sink, t.encoder_layers, config_.n_blocks);
  ForwardResult result;
  result.hidden = run_decoder(source, std::move(target), input, t.encoder_layers, t.decoder_layers, gates, hooks,
                              options, sink);
  result.logits = output(result.hidden, input);
  result.attention = sink.release();
  return result;
}

std::shared_ptr<TranslationTransformerImpl> make_translation_transformer(const ModelConfig& config, bool initialise) {
  return std::make_shared<TranslationTransformerImpl>(config, initialise);
}

}  // namespace aw
