// models/training/multi_tensor_optim.cpp — see multi_tensor_optim.h.
#include "models/training/multi_tensor_optim.h"

#include <ATen/ATen.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

namespace aw {
namespace {

// The key torch::optim keeps a parameter's state under: the address of its TensorImpl, written as text
// before LibTorch 2 and kept as the pointer since.
template <typename Key>
Key state_key(const torch::Tensor& parameter) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << parameter.unsafeGetTensorImpl();
    return text.str();
  } else {
    return static_cast<Key>(parameter.unsafeGetTensorImpl());
  }
}

}  // namespace

torch::Tensor MultiTensorAdam::step(LossClosure closure) {
  for (auto& group : param_groups_)
    if (static_cast<torch::optim::AdamOptions&>(group.options()).amsgrad()) return torch::optim::Adam::step(closure);
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  using Key = typename std::decay_t<decltype(state_)>::key_type;
  for (auto& group : param_groups_) {
    const auto& options = static_cast<torch::optim::AdamOptions&>(group.options());
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
    std::vector<torch::Tensor> parameters, gradients, averages, squared_averages;
    std::vector<at::Scalar> step_sizes, root_corrections;  // per tensor: its own step count's bias corrections
    for (auto& parameter : group.params()) {
      if (!parameter.grad().defined()) continue;
      TORCH_CHECK(!parameter.grad().is_sparse(), "Adam does not support sparse gradients");
      const auto key = state_key<Key>(parameter);
      auto found = state_.find(key);
      if (found == state_.end()) {
        auto fresh = std::make_unique<torch::optim::AdamParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(parameter, torch::MemoryFormat::Preserve));
        found = state_.emplace(key, std::move(fresh)).first;
      }
      auto& state = static_cast<torch::optim::AdamParamState&>(*found->second);
      state.step(state.step() + 1);
      const double correction1 = 1 - std::pow(beta1, state.step());
      const double correction2 = 1 - std::pow(beta2, state.step());
      parameters.push_back(parameter);
      gradients.push_back(parameter.grad());
      averages.push_back(state.exp_avg());
      squared_averages.push_back(state.exp_avg_sq());
      step_sizes.emplace_back(-(options.lr() / correction1));
      root_corrections.emplace_back(std::sqrt(correction2));
    }
    if (parameters.empty()) continue;
    if (options.weight_decay() != 0) gradients = at::_foreach_add(gradients, parameters, options.weight_decay());
    // The moments, the denominator √(v / correction2) + ε and the step, in Adam's own order of operations.
    at::_foreach_mul_(averages, beta1);
    at::_foreach_add_(averages, gradients, 1 - beta1);
    at::_foreach_mul_(squared_averages, beta2);
    at::_foreach_addcmul_(squared_averages, gradients, gradients, 1 - beta2);
    auto denominators = at::_foreach_sqrt(squared_averages);
    at::_foreach_div_(denominators, root_corrections);
    at::_foreach_add_(denominators, options.eps());
    at::_foreach_addcdiv_(parameters, averages, denominators, step_sizes);
  }
  return loss;
}

torch::optim::AdamParamState* adam_state(torch::optim::Optimizer& optimizer, const torch::Tensor& parameter) {
  auto& states = optimizer.state();
  using Key = typename std::decay_t<decltype(states)>::key_type;
  const auto found = states.find(state_key<Key>(parameter));
  return found == states.end() ? nullptr : static_cast<torch::optim::AdamParamState*>(found->second.get());
}

void clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> gradients;
  for (const auto& parameter : parameters)
    if (parameter.grad().defined()) gradients.push_back(parameter.grad());
  if (gradients.empty()) return;
  // clip_grad_norm_'s arithmetic: the ℓ2 norm of each gradient, the ℓ2 norm of those, the clamped ratio.
  const auto norms = at::_foreach_norm(gradients, 2);
  const auto total = norms.size() == 1 ? norms.front() : torch::stack(norms).norm(2);
  const auto coefficient = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  at::_foreach_mul_(gradients, coefficient);
}

}  // namespace aw
