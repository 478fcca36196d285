// models/training/multi_tensor_optim.h — the training step's Adam and gradient clipping over all
// parameter tensors at once. A small model's training lane on a GPU is bound by one CPU thread
// launching kernels (docs/gpu.md): LibTorch's C++ Adam and clip_grad_norm_ loop over the parameter
// tensors, several kernels each (1,008 operations a step for the 100 tensors of the 6-layer study LM,
// bench_training's BM_OptimizerStep), where LibTorch's multi-tensor (_foreach) kernels take every tensor
// in one launch.
#pragma once

#include <torch/optim/adam.h>
#include <torch/types.h>

#include <vector>

namespace aw {

// Adam exactly as torch::optim::Adam steps it — the same options, the same per-parameter state under
// the same keys, so a run's saved optimizer loads into either — with each update over all the
// parameters of a group in one multi-tensor operation. Bit-identical to torch::optim::Adam on the CPU
// (test_multi_tensor_optim). amsgrad, which no training here uses, takes torch::optim::Adam's own step.
class MultiTensorAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

// The state torch::optim::Adam and MultiTensorAdam keep for `parameter`; nullptr before its first step.
torch::optim::AdamParamState* adam_state(torch::optim::Optimizer& optimizer, const torch::Tensor& parameter);

// What torch::nn::utils::clip_grad_norm_(parameters, max_norm) does to the gradients — each scaled by
// min(1, max_norm / (‖all gradients‖₂ + 1e-6)) — with multi-tensor kernels, and without reading the norm
// back to the host (clip_grad_norm_ returns it, which waits for the device every step).
void clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace aw
