// analysis/circuits/translation_edge_reading.cpp — see translation_edge_reading.h.
#include "analysis/circuits/translation_edge_reading.h"

#include "analysis/circuits/head_input_gradients.h"

#include <torch/torch.h>

namespace aw {
namespace {

MultiHeadAttentionImpl& attention_of(TranslationTransformerImpl& model, int64_t block) {
  const auto where = model.config().attention_block(block);
  if (where.kind == AttentionKind::Encoder) return *model.encoder[where.layer]->as<TransformerBlockImpl>()->attn;
  auto& layer = *model.decoder[where.layer]->as<DecoderBlockImpl>();
  return where.kind == AttentionKind::Decoder ? *layer.self_attn : *layer.cross_attn;
}

}  // namespace

void read_translation_writes(TranslationTransformerImpl& model, const EdgeGraph& graph, ForwardOptions& options,
                             const StreamWrites& writes) {
  const auto split = graph.decoder_senders;
  const auto total = static_cast<int64_t>(graph.senders.size());
  const auto le = model.config().translation.encoder_layers;
  // The inputs: each stream's first sender, allocated with its stream's shape.
  auto input = [](const std::shared_ptr<torch::Tensor>& into, int64_t count) {
    return [into, count](const HookSite&, const torch::Tensor& x) {
      *into = torch::zeros({count, x.size(0), x.size(1), x.size(2)}, x.options().requires_grad(false));
      into->select(0, 0).copy_(x.detach());
      return torch::Tensor();
    };
  };
  options.hooks.add(HookPoint::ResidPre, 0, input(writes.encoder, split));
  options.hooks.add(HookPoint::ResidPre, le, input(writes.decoder, total - split));
  // Where a sender goes: its stream's tensor and its row there.
  auto row_of = [split, writes](int64_t sender) {
    return sender < split ? std::make_pair(writes.encoder, sender) : std::make_pair(writes.decoder, sender - split);
  };
  const auto first_head = graph.first_head, mlp_senders = graph.mlp_senders;
  options.hooks.add(HookPoint::Z, -1, [&model, first_head, row_of](const HookSite& site, const torch::Tensor& z) {
    torch::NoGradGuard no_gradients;
    const auto heads = attention_of(model, site.layer).head_writes(z.detach().transpose(1, 2)).permute({2, 0, 1, 3});
    const auto [into, row] = row_of(first_head[site.layer]);
    into->narrow(0, row, heads.size(0)).copy_(heads);
    return torch::Tensor();
  });
  options.hooks.add(HookPoint::MlpOut, -1, [mlp_senders, row_of](const HookSite& site, const torch::Tensor& out) {
    const auto [into, row] = row_of(mlp_senders[site.layer]);
    into->select(0, row).copy_(out.detach());
    return torch::Tensor();
  });
}

torch::Tensor read_heads(TranslationTransformerImpl& model, int64_t block, ReceiverKind kind, const torch::Tensor& states) {
  const auto& config = model.config();
  const auto where = config.attention_block(block);
  auto& attention = attention_of(model, block);
  torch::Tensor normed;
  if (where.kind == AttentionKind::Encoder) {
    normed = model.encoder[where.layer]->as<TransformerBlockImpl>()->ln_1(states);
  } else {
    auto& layer = *model.decoder[where.layer]->as<DecoderBlockImpl>();
    if (where.kind == AttentionKind::Decoder) normed = layer.ln_1(states);
    else if (kind == ReceiverKind::Query) normed = layer.ln_2(states);
    else normed = model.enc_ln_f ? model.enc_ln_f(states) : states;  // the memory the keys and values read
  }
  const auto& dense = kind == ReceiverKind::Query ? attention.q : kind == ReceiverKind::Key ? attention.k : attention.v;
  return projected(dense, normed, config.head_width(block));
}

torch::Tensor mlp_norm(TranslationTransformerImpl& model, int64_t block, const torch::Tensor& state) {
  const auto where = model.config().attention_block(block);
  if (where.kind == AttentionKind::Encoder) return model.encoder[where.layer]->as<TransformerBlockImpl>()->ln_2(state);
  return model.decoder[where.layer]->as<DecoderBlockImpl>()->ln_3(state);
}

}  // namespace aw
