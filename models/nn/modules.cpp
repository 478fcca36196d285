// models/nn/modules.cpp — see modules.h.
#include "models/nn/modules.h"

#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

// (x1, x2) -> (−x2, x1) over the two halves of the last dimension.
torch::Tensor rotate_half(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

}  // namespace

torch::ScalarType widened(torch::ScalarType dtype) {
  return dtype == torch::kBFloat16 || dtype == torch::kHalf ? torch::kFloat32 : dtype;
}

DenseImpl::DenseImpl(int64_t in, int64_t out, bool with_bias) {
  weight = register_parameter("weight", torch::empty({out, in}));
  if (with_bias) bias = register_parameter("bias", torch::empty({out}));
}

LookupImpl::LookupImpl(int64_t rows, int64_t width) {
  weight = register_parameter("weight", torch::empty({rows, width}));
}

NormImpl::NormImpl(int64_t width, double eps, NormKind kind) : eps_(eps), kind_(kind) {
  weight = register_parameter("weight", torch::ones({width}));
  if (kind == NormKind::LayerNorm) bias = register_parameter("bias", torch::zeros({width}));
}

torch::Tensor NormImpl::forward(const torch::Tensor& x) {
  if (kind_ == NormKind::LayerNorm) return torch::layer_norm(x, {weight.size(0)}, weight, bias, eps_);
  const auto wide = x.to(widened(x.scalar_type()));  // float32 for BF16/F16, float64 stays float64
  const auto normed = wide * torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  // Llama rounds to the model's dtype before the weight, Gemma after it (as Hugging Face does).
  if (kind_ == NormKind::RmsNormPlusOne) return (normed * (1 + weight.to(normed.scalar_type()))).to(x.scalar_type());
  return weight * normed.to(x.scalar_type());
}

torch::Tensor NormImpl::linearised(const torch::Tensor& at, const torch::Tensor& x) const {
  const auto wide_at = at.to(widened(at.scalar_type()));
  const auto wide_x = x.to(wide_at.scalar_type());
  if (kind_ == NormKind::LayerNorm) {
    const auto variance = wide_at.var(-1, /*unbiased=*/false, /*keepdim=*/true);
    return (wide_x - wide_x.mean(-1, true)) * torch::rsqrt(variance + eps_) * weight.to(wide_x.scalar_type());
  }
  const auto scale = kind_ == NormKind::RmsNormPlusOne ? 1 + weight.to(wide_x.scalar_type()) : weight.to(wide_x.scalar_type());
  return wide_x * torch::rsqrt(wide_at.pow(2).mean(-1, true) + eps_) * scale;
}

namespace {

// YaRN: each frequency blended between itself (extrapolated: the fast dimensions, beyond beta_fast
// rotations over the trained context) and itself ÷ factor (interpolated: the slow ones, below
// beta_slow), linearly in the dimension index between the two bounds.
torch::Tensor yarn_frequencies(const RotaryPart& rotary, const torch::Tensor& frequency) {
  const double dims = static_cast<double>(rotary.dims);
  const double context = static_cast<double>(rotary.original_max_positions);
  const auto dimension_of = [&](double rotations) {  // the dimension that turns `rotations` times over the context
    return dims * std::log(context / (rotations * 2 * M_PI)) / (2 * std::log(rotary.theta));
  };
  double low = dimension_of(rotary.beta_fast), high = dimension_of(rotary.beta_slow);
  if (rotary.truncate) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0), high = std::min(high, dims - 1);
  if (low == high) high += 0.001;  // as transformers does: no division by zero
  const auto ramp = ((torch::arange(rotary.dims / 2, frequency.options()) - low) / (high - low)).clamp(0.0, 1.0);
  const auto kept = 1 - ramp;  // the share of the original frequency
  return frequency / rotary.factor * (1 - kept) + frequency * kept;
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> rotary_tables(const RotaryPart& rotary, int64_t length,
                                                      const torch::TensorOptions& float_options) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  auto frequency = torch::pow(rotary.theta, -torch::arange(0, rotary.dims, 2, f64) / static_cast<double>(rotary.dims));
  if (rotary.scaling == RopeScaling::Linear) frequency = frequency / rotary.factor;
  if (rotary.scaling == RopeScaling::Llama3) {
    // Long wavelengths (beyond the trained context ÷ low_freq_factor) are divided by the factor,
    // short ones (below context ÷ high_freq_factor) kept, and those between blended linearly in
    // context / wavelength.
    const double context = static_cast<double>(rotary.original_max_positions);
    const auto wavelength = 2 * M_PI / frequency;
    const auto blend = ((context / wavelength - rotary.low_freq_factor) /
                        (rotary.high_freq_factor - rotary.low_freq_factor)).clamp(0.0, 1.0);
    frequency = (1 - blend) * frequency / rotary.factor + blend * frequency;
  }
  if (rotary.scaling == RopeScaling::Yarn) frequency = yarn_frequencies(rotary, frequency);
  const auto angles = torch::outer(torch::arange(length, f64), frequency);  // (n, dims/2)
  const auto doubled = torch::cat({angles, angles}, -1);                    // (n, dims)
  const double scale = rotary.scaling == RopeScaling::Yarn ? rotary.attention_factor : 1.0;
  return {(torch::cos(doubled) * scale).to(float_options), (torch::sin(doubled) * scale).to(float_options)};
}

torch::Tensor apply_rotary(const torch::Tensor& t, const torch::Tensor& cos, const torch::Tensor& sin) {
  const int64_t dims = cos.size(-1);
  if (dims == t.size(-1)) return t * cos + rotate_half(t) * sin;
  const auto turned = t.narrow(-1, 0, dims);
  return torch::cat({turned * cos + rotate_half(turned) * sin, t.narrow(-1, dims, t.size(-1) - dims)}, -1);
}

}  // namespace aw
