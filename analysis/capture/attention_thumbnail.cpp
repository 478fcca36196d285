// analysis/capture/attention_thumbnail.cpp — see attention_thumbnail.h.
#include "analysis/capture/attention_thumbnail.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {

torch::Tensor attention_thumbnail(const torch::Tensor& block) {
  if (block.size(1) <= kThumbnailSide && block.size(2) <= kThumbnailSide) return block;
  return torch::adaptive_avg_pool2d(block.to(torch::kFloat32), {std::min(kThumbnailSide, block.size(1)),
                                                                std::min(kThumbnailSide, block.size(2))});
}

}  // namespace aw
