// models/nn/modules.h — the small modules and tables the transformers are built from: linear maps
// and embedding tables that start uninitialised, LayerNorm/RMSNorm, rotary positions, and the dtype
// probabilities and logits are widened to.
#pragma once

#include "models/nn/model_config.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <utility>

namespace aw {

// The dtype probabilities and logits are given in: float32 for a BF16 or F16 model (as Hugging
// Face's eager attention and output), the model's own otherwise (float64 in the gradient checks).
torch::ScalarType widened(torch::ScalarType dtype);

// A linear map y = x Wᵀ + b whose parameters start uninitialised. LibTorch's Linear and Embedding
// fill every weight at random on construction, which loading then overwrites: ~1 s of wasted work
// for a GPT-2-small checkpoint. Fresh models are initialised once, by make_transformer.
class DenseImpl : public torch::nn::Module {
 public:
  DenseImpl(int64_t in, int64_t out, bool with_bias);
  torch::Tensor forward(const torch::Tensor& x) { return torch::linear(x, weight, bias); }
  torch::Tensor weight, bias;  // [out, in], [out] (bias undefined when with_bias is false)
};
TORCH_MODULE(Dense);

// An embedding table [rows, width], uninitialised for the same reason as Dense.
class LookupImpl : public torch::nn::Module {
 public:
  LookupImpl(int64_t rows, int64_t width);
  torch::Tensor forward(const torch::Tensor& ids) { return torch::embedding(weight, ids); }
  torch::Tensor weight;
};
TORCH_MODULE(Lookup);

// LayerNorm or RMSNorm (with w or Gemma's 1 + w) over the last dimension (DecoderPart::norm),
// parameters "weight" and (LayerNorm only) "bias". RMSNorm works in float32 in a BF16 or F16 model,
// as Hugging Face's does.
class NormImpl : public torch::nn::Module {
 public:
  NormImpl(int64_t width, double eps, NormKind kind);
  torch::Tensor forward(const torch::Tensor& x);
  // The norm as a linear map of x with its scale frozen at `at` (the input it divides x by) and no
  // bias: LayerNorm (x − mean x) / √(var(at) + ε) · γ, RMSNorm x / √(mean(at²) + ε) · γ. `at` [..., d]
  // broadcasts against x [..., d]. How a part of the residual stream reaches the logits (direct logit
  // attribution): the parts' images add up to the norm's output less its bias.
  torch::Tensor linearised(const torch::Tensor& at, const torch::Tensor& x) const;
  torch::Tensor weight, bias;

 private:
  double eps_;
  NormKind kind_;
};
TORCH_MODULE(Norm);

// Rotary positions for `length` tokens: cos and sin [length, dims] in `float_options`, each frequency
// twice (Hugging Face's rotate_half layout), with the config's scaling applied to the frequencies.
std::pair<torch::Tensor, torch::Tensor> rotary_tables(const RotaryPart& rotary, int64_t length,
                                                      const torch::TensorOptions& float_options);
// t [B, H, n, dh] with its first cos.size(-1) channels turned by the rotary angles (the rest pass).
torch::Tensor apply_rotary(const torch::Tensor& t, const torch::Tensor& cos, const torch::Tensor& sin);

}  // namespace aw
