// models/nn/mixture_of_experts.h — the sparse feed-forward of the mixture-of-experts families (MoePart):
// a router scores each token against E experts, the token goes to its k best, and their outputs are
// summed with the router's weights. Experts run one after another on the tokens routed to them, so
// no expert sees a token it was not chosen for and nothing [tokens, E, ff] is ever formed.
#pragma once

#include "models/nn/hooks.h"
#include "models/nn/model_config.h"
#include "models/nn/modules.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>

namespace aw {

// Each token's experts, best first, and the weights their outputs are summed with.
struct ExpertChoice {
  torch::Tensor experts;  // [..., k] long
  torch::Tensor weights;  // [..., k] float32
};
// The choice the router's logits [..., E] make under `moe`'s rule (MoePart): what the forward uses,
// and what `attend --experts` writes.
ExpertChoice choose_experts(const MoePart& moe, const torch::Tensor& router_logits);

// One SwiGLU expert (mixtral, qwen3_moe, olmoe): fc2(act(gate(x)) ⊙ fc1(x)), fc1 being up_proj.
class ExpertImpl : public torch::nn::Module {
 public:
  ExpertImpl(int64_t d_model, int64_t ffn);
  Dense gate{nullptr}, fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Expert);

class MixtureOfExpertsImpl : public torch::nn::Module {
 public:
  explicit MixtureOfExpertsImpl(const ModelConfig& config);
  // x (…, tokens, d), in tiles of tokens under `memory_budget` (FeedForward's rule); `hooks` see and
  // may change the router's logits (HookPoint::Router) before the choice.
  torch::Tensor forward(const torch::Tensor& x, int64_t memory_budget = 0, const LayerHooks& hooks = {});

  Dense router{nullptr};             // [E, d] (+ bias: gpt-oss)
  torch::nn::ModuleList experts{nullptr};  // one Expert each (not packed)
  // gpt-oss, as Hugging Face stores them: [E, d, 2·ff] with gate and up interleaved column by column,
  // [E, 2·ff], [E, ff, d], [E, d].
  torch::Tensor gate_up, gate_up_bias, down, down_bias;

 private:
  torch::Tensor mix(const torch::Tensor& x, const LayerHooks& hooks, int64_t first_token);
  // Expert `expert`'s output for its tokens' rows [c, d].
  torch::Tensor expert_output(int64_t expert, const torch::Tensor& rows);

  MoePart moe_;
  Activation activation_;
};
TORCH_MODULE(MixtureOfExperts);

}  // namespace aw
