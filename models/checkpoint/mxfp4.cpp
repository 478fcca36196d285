// models/checkpoint/mxfp4.cpp — MXFP4 expert weights in (see mxfp4.h).
#include "models/checkpoint/mxfp4.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {
namespace {

// FP4 E2M1: sign, two exponent bits, one mantissa bit; the values of codes 0…15.
constexpr float kE2M1[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f,
                             -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

bool holds_mxfp4(const TensorSource& file, const std::string& name) {
  return file.contains(name + "_blocks") && file.contains(name + "_scales");
}

torch::Tensor read_mxfp4(const TensorSource& file, const std::string& name, const std::vector<int64_t>& expected) {
  const auto blocks_name = name + "_blocks", scales_name = name + "_scales";
  const auto& blocks = file.record(blocks_name);
  const auto& scales = file.record(scales_name);
  const auto where = file.path_of(blocks_name);
  if (blocks.dtype != "U8" || scales.dtype != "U8")
    fail_in_file(where, "MXFP4 tensors '" + blocks_name + "' and '" + scales_name + "' must be U8, got " + blocks.dtype +
                            " and " + scales.dtype);
  const auto& b = blocks.shape;
  if (b.size() != 4 || b[3] != 16 || scales.shape != std::vector<int64_t>(b.begin(), b.end() - 1))
    fail_in_file(where, "MXFP4 tensor '" + blocks_name + "' " + shape_text(b) + " with scales " + shape_text(scales.shape) +
                            ": expected blocks [E, R, G, 16] and scales [E, R, G]");
  const std::vector<int64_t> dequantised = {b[0], b[2] * 32, b[1]};
  if (dequantised != expected)
    fail_in_file(where, "MXFP4 tensor '" + name + "' dequantises to " + shape_text(dequantised) + " but the config needs " +
                            shape_text(expected));
  torch::NoGradGuard no_grad;
  const auto codes = file.tensor(blocks_name).to(torch::kInt64);  // [E, R, G, 16]
  const auto table = torch::from_blob(const_cast<float*>(kE2M1), {16}, torch::kFloat32);
  // Each byte's low nibble is the even value, its high nibble the odd one.
  const auto values = torch::stack({table.index({codes.bitwise_and(15)}), table.index({codes.bitwise_right_shift(4)})}, -1)
                          .view({b[0], b[1], b[2], 32});
  const auto exponents = file.tensor(scales_name).to(torch::kInt32) - 127;  // [E, R, G]
  const auto scaled = torch::ldexp(values, exponents.unsqueeze(-1));
  return scaled.view({b[0], b[1], b[2] * 32}).transpose(1, 2).contiguous();
}

}  // namespace aw
