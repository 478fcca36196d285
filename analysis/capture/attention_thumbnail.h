// analysis/capture/attention_thumbnail.h — the small picture of an attention block that the
// overview draws and attention files carry beside each layer.
#pragma once

#include <torch/types.h>

#include <cstdint>

namespace aw {

// Thumbnails of attention blocks [H, rows, cols]: at most kThumbnailSide per side, each cell the
// mean of the weights it covers (adaptive average pooling); a block that small already is returned.
constexpr int64_t kThumbnailSide = 64;
torch::Tensor attention_thumbnail(const torch::Tensor& block);

}  // namespace aw
