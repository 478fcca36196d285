// analysis/circuits/edge_senders.cpp — see edge_senders.h.
#include "analysis/circuits/edge_senders.h"

#include <torch/torch.h>

namespace aw {

torch::Tensor head_residual_writes(TransformerImpl& model, int64_t layer, const torch::Tensor& z) {
  auto& block = *model.layers[layer]->as<TransformerBlockImpl>();
  auto writes = block.attn->head_writes(z.transpose(1, 2)).permute({2, 0, 1, 3});  // [H, B, n, d]
  if (!block.ln_attn_out) return writes;
  auto whole = writes.sum(0);
  if (block.attn->o->bias.defined()) whole = whole + block.attn->o->bias.to(whole.scalar_type());
  return block.ln_attn_out->linearised(whole, writes).to(z.scalar_type());
}

void read_sender_writes(TransformerImpl& model, const EdgeGraph& graph, ForwardOptions& options,
                        const std::shared_ptr<torch::Tensor>& writes) {
  const auto senders = static_cast<int64_t>(graph.senders.size());
  options.hooks.add(HookPoint::ResidPre, 0, [writes, senders](const HookSite&, const torch::Tensor& x) {
    *writes = torch::zeros({senders, x.size(0), x.size(1), x.size(2)}, x.options().requires_grad(false));
    writes->select(0, 0).copy_(x.detach());
    return torch::Tensor();
  });
  const auto& first_head = graph.first_head;
  options.hooks.add(HookPoint::Z, -1, [&model, writes, first_head](const HookSite& site, const torch::Tensor& z) {
    torch::NoGradGuard no_gradients;
    const auto heads = head_residual_writes(model, site.layer, z.detach());
    writes->narrow(0, first_head[site.layer], heads.size(0)).copy_(heads);
    return torch::Tensor();
  });
  const auto& mlp_senders = graph.mlp_senders;
  options.hooks.add(HookPoint::MlpOut, -1, [writes, mlp_senders](const HookSite& site, const torch::Tensor& out) {
    writes->select(0, mlp_senders[site.layer]).copy_(out.detach());
    return torch::Tensor();
  });
}

}  // namespace aw
