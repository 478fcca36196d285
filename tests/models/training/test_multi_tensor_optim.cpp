// tests/models/training/test_multi_tensor_optim.cpp — the multi-tensor Adam and gradient clipping
// (models/training/multi_tensor_optim.h) against LibTorch's own: bit-identical parameters and moments
// over several steps, with and without weight decay, in float32 and float64; a parameter without a
// gradient left alone; the state kept under LibTorch's keys (steps may alternate between the two, and a
// saved optimizer loads into either); clipping equal to clip_grad_norm_ above and below the limit.
#include "models/training/multi_tensor_optim.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

namespace aw {
namespace {

// Parameters of assorted shapes (a matrix, a vector, a scalar, a 3-d tensor), seeded.
std::vector<torch::Tensor> make_parameters(torch::ScalarType dtype, uint64_t seed = 1) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> parameters;
  for (const auto& shape : std::vector<std::vector<int64_t>>{{7, 5}, {11}, {}, {3, 4, 2}})
    parameters.push_back(torch::randn(shape, torch::dtype(dtype)).requires_grad_(true));
  return parameters;
}

std::vector<torch::Tensor> copies(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> copied;
  for (const auto& parameter : parameters) copied.push_back(parameter.detach().clone().requires_grad_(true));
  return copied;
}

// Step `step` of a run: the same seeded gradient for both optimizers' parameters.
void set_gradients(std::vector<torch::Tensor>& parameters, int step) {
  torch::manual_seed(100 + step);
  for (auto& parameter : parameters) parameter.mutable_grad() = torch::randn_like(parameter) * (step + 1);
}

void expect_identical(const std::vector<torch::Tensor>& got, const std::vector<torch::Tensor>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(torch::equal(got[i], expected[i])) << "tensor " << i << ": " << test::max_difference(got[i], expected[i]);
}

std::vector<torch::Tensor> moments(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> all;
  for (const auto& parameter : parameters) {
    const auto* state = adam_state(optimizer, parameter);
    EXPECT_NE(state, nullptr);
    if (state == nullptr) continue;
    all.push_back(state->exp_avg());
    all.push_back(state->exp_avg_sq());
  }
  return all;
}

torch::optim::AdamOptions options(double weight_decay) {
  return torch::optim::AdamOptions(1e-2).betas({0.9, 0.98}).eps(1e-9).weight_decay(weight_decay);
}

TEST(MultiTensorOptim, AdamStepsAreBitIdenticalToLibTorchsAdam) {
  for (const auto dtype : {torch::kFloat32, torch::kFloat64}) {
    for (const double weight_decay : {0.0, 1e-2}) {
      auto ours = make_parameters(dtype);
      auto theirs = copies(ours);
      MultiTensorAdam multi(ours, options(weight_decay));
      torch::optim::Adam reference(theirs, options(weight_decay));
      for (int step = 0; step < 6; ++step) {
        set_gradients(ours, step);
        set_gradients(theirs, step);
        if (step == 3) multi.param_groups()[0].options().set_lr(3e-3), reference.param_groups()[0].options().set_lr(3e-3);
        multi.step();
        reference.step();
      }
      SCOPED_TRACE(std::string(dtype == torch::kFloat32 ? "float32" : "float64") + ", weight decay " +
                   std::to_string(weight_decay));
      expect_identical(ours, theirs);
      expect_identical(moments(multi, ours), moments(reference, theirs));
      EXPECT_FALSE(torch::equal(ours[0], make_parameters(dtype)[0]));  // the steps moved the parameters
    }
  }
}

TEST(MultiTensorOptim, AParameterWithoutAGradientIsLeftAlone) {
  auto ours = make_parameters(torch::kFloat32);
  auto theirs = copies(ours);
  MultiTensorAdam multi(ours, options(0.0));
  torch::optim::Adam reference(theirs, options(0.0));
  set_gradients(ours, 0);
  set_gradients(theirs, 0);
  ours[1].mutable_grad() = torch::Tensor();
  theirs[1].mutable_grad() = torch::Tensor();
  multi.step();
  reference.step();
  expect_identical(ours, theirs);
  EXPECT_TRUE(torch::equal(ours[1], make_parameters(torch::kFloat32)[1]));
  EXPECT_EQ(adam_state(multi, ours[1]), nullptr);
  EXPECT_NE(adam_state(multi, ours[0]), nullptr);
  // Its first step later starts its own count at 1, as LibTorch's does.
  set_gradients(ours, 1);
  set_gradients(theirs, 1);
  multi.step();
  reference.step();
  expect_identical(ours, theirs);
}

TEST(MultiTensorOptim, StateIsKeptWhereLibTorchsAdamKeepsIt) {
  auto ours = make_parameters(torch::kFloat32);
  auto theirs = copies(ours);
  MultiTensorAdam multi(ours, options(0.0));
  torch::optim::Adam reference(theirs, options(0.0));
  for (int step = 0; step < 4; ++step) {
    set_gradients(ours, step);
    set_gradients(theirs, step);
    // Alternating: each class's step must find and advance the state the other one left.
    if (step % 2 == 0) multi.step(); else multi.torch::optim::Adam::step();
    reference.step();
  }
  expect_identical(ours, theirs);
  // A saved multi-tensor Adam loads into LibTorch's and the next step agrees.
  test::TempDir dir;
  torch::save(multi, dir.file("adam.pt"));
  auto loaded_parameters = copies(ours);
  torch::optim::Adam loaded(loaded_parameters, options(0.0));
  torch::load(loaded, dir.file("adam.pt"));
  set_gradients(loaded_parameters, 9);
  set_gradients(ours, 9);
  loaded.step();
  multi.step();
  expect_identical(loaded_parameters, ours);
}

TEST(MultiTensorOptim, ClippingEqualsClipGradNorm) {
  for (const double max_norm : {0.5, 1e3}) {  // clipped, and left as they are
    auto ours = make_parameters(torch::kFloat32);
    auto theirs = copies(ours);
    set_gradients(ours, 2);
    set_gradients(theirs, 2);
    clip_gradient_norm(ours, max_norm);
    torch::nn::utils::clip_grad_norm_(theirs, max_norm);
    std::vector<torch::Tensor> got, expected;
    for (size_t i = 0; i < ours.size(); ++i) got.push_back(ours[i].grad()), expected.push_back(theirs[i].grad());
    SCOPED_TRACE(max_norm);
    expect_identical(got, expected);
    double norm = 0;
    for (const auto& gradient : got) norm += gradient.pow(2).sum().item<double>();
    if (max_norm < 1) EXPECT_NEAR(std::sqrt(norm), max_norm, 1e-5);
  }
}

}  // namespace
}  // namespace aw
