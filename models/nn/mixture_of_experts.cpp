// models/nn/mixture_of_experts.cpp — routing and experts (see mixture_of_experts.h).
#include "models/nn/mixture_of_experts.h"

#include "models/nn/transformer.h"

#include <torch/torch.h>

namespace aw {

ExpertChoice choose_experts(const MoePart& moe, const torch::Tensor& router_logits) {
  const auto logits = router_logits.to(torch::kFloat32);
  if (moe.top_k_softmax) {  // gpt-oss: the k best logits, then a softmax over them alone
    auto [best, experts] = logits.topk(moe.top_k, -1);
    return {experts, torch::softmax(best, -1)};
  }
  auto [weights, experts] = torch::softmax(logits, -1).topk(moe.top_k, -1);
  if (moe.normalise_top_k) weights = weights / weights.sum(-1, true);
  return {experts, weights};
}

ExpertImpl::ExpertImpl(int64_t d_model, int64_t ffn) {
  gate = register_module("gate", Dense(d_model, ffn, false));
  fc1 = register_module("fc1", Dense(d_model, ffn, false));
  fc2 = register_module("fc2", Dense(ffn, d_model, false));
}

MixtureOfExpertsImpl::MixtureOfExpertsImpl(const ModelConfig& config) : moe_(config.moe), activation_(config.activation) {
  const int64_t d = config.d_model, ffn = moe_.expert_ffn, count = moe_.experts;
  router = register_module("router", Dense(d, count, moe_.router_bias));
  if (moe_.packed_experts) {
    gate_up = register_parameter("gate_up", torch::empty({count, d, 2 * ffn}));
    gate_up_bias = register_parameter("gate_up_bias", torch::empty({count, 2 * ffn}));
    down = register_parameter("down", torch::empty({count, ffn, d}));
    down_bias = register_parameter("down_bias", torch::empty({count, d}));
    return;
  }
  experts = register_module("experts", torch::nn::ModuleList());
  for (int64_t expert = 0; expert < count; ++expert) experts->push_back(Expert(d, ffn));
}

torch::Tensor MixtureOfExpertsImpl::forward(const torch::Tensor& x, int64_t memory_budget, const LayerHooks& hooks) {
  // Alive at once per token, at worst (every token choosing one expert): its k experts' inner [ff]
  // vectors, four per expression as in FeedForward, and its E router logits.
  const int64_t per_token = (moe_.top_k * moe_.expert_ffn * 4 + moe_.experts) * static_cast<int64_t>(x.element_size());
  return in_token_tiles(x, per_token, memory_budget,
                        [&](const torch::Tensor& rows, int64_t first) { return mix(rows, hooks, first); });
}

torch::Tensor MixtureOfExpertsImpl::mix(const torch::Tensor& x, const LayerHooks& hooks, int64_t first_token) {
  const int64_t d = x.size(-1);
  const auto flat = x.reshape({-1, d});                                                  // (N, d)
  auto logits = hooks.run(HookPoint::Router, router(x), first_token);                    // (…, n, E)
  const auto choice = choose_experts(moe_, logits.reshape({-1, moe_.experts}));          // (N, k)
  // The (token, slot) pairs grouped by expert: one sort, and one read of the counts to the host.
  const auto chosen = choice.experts.reshape({-1});
  const auto order = chosen.argsort(/*stable=*/true);
  const auto counts = torch::bincount(chosen, {}, moe_.experts).to(torch::kCPU);
  const auto token_of = order.div(moe_.top_k, "floor");
  const auto weight_of = choice.weights.reshape({-1}).index_select(0, order);
  auto output = torch::zeros_like(flat);
  const auto* count = counts.data_ptr<int64_t>();
  int64_t offset = 0;
  for (int64_t expert = 0; expert < moe_.experts; ++expert) {
    if (count[expert] == 0) continue;
    const auto tokens = token_of.narrow(0, offset, count[expert]);
    const auto weights = weight_of.narrow(0, offset, count[expert]).unsqueeze(1);
    offset += count[expert];
    // Weighted in float32 as Hugging Face's Mixtral does, summed in the model's dtype.
    const auto written = expert_output(expert, flat.index_select(0, tokens)) * weights;
    output.index_add_(0, tokens, written.to(output.scalar_type()));
  }
  return output.view(x.sizes());
}

torch::Tensor MixtureOfExpertsImpl::expert_output(int64_t expert, const torch::Tensor& rows) {
  if (!moe_.packed_experts) {
    const auto& unit = experts[expert]->as<ExpertImpl>();
    return unit->fc2(activate(unit->gate(rows), activation_) * unit->fc1(rows));
  }
  // gpt-oss: gate and up interleaved; gate capped above, up clamped both ways, then (up + 1) · glu.
  const auto both = torch::addmm(gate_up_bias[expert], rows, gate_up[expert]);  // (c, 2·ff)
  using torch::indexing::None;
  using torch::indexing::Slice;
  const auto gate = both.index({Slice(), Slice(0, None, 2)}).clamp_max(moe_.swiglu_limit);
  const auto up = both.index({Slice(), Slice(1, None, 2)}).clamp(-moe_.swiglu_limit, moe_.swiglu_limit);
  const auto glu = gate * torch::sigmoid(gate * moe_.swiglu_alpha);
  return torch::addmm(down_bias[expert], (up + 1) * glu, down[expert]);
}

}  // namespace aw
