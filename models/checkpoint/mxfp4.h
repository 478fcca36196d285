// models/checkpoint/mxfp4.h — MXFP4 (OCP Microscaling, FP4 E2M1 with a shared E8M0 scale per block of 32
// values), as gpt-oss's Hub files store their expert weights: `<name>_blocks` and `<name>_scales`.
#pragma once

#include "models/checkpoint/safetensors.h"

#include <torch/types.h>

#include <string>

namespace aw {

// Whether `file` holds `name` in MXFP4 (both `<name>_blocks` and `<name>_scales`).
bool holds_mxfp4(const TensorSource& file, const std::string& name);
// The float32 tensor [E, G·32, R] of blocks [E, R, G, 16] (two 4-bit values a byte, the low nibble
// first) and scales [E, R, G] (2^(s − 127)): Hugging Face's layout of the dequantised weight
// (gate_up_proj [E, d, 2·ff], down_proj [E, ff, d]). Throws aw::Error naming the file, the tensor and
// what is wrong (dtype, shapes that do not match each other or `expected`).
torch::Tensor read_mxfp4(const TensorSource& file, const std::string& name, const std::vector<int64_t>& expected);

}  // namespace aw
