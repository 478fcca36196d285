// analysis/capture/pooled_attention.h — an attention map pooled block by block from the tiles of
// rows the forward makes (models/nn/attention.h): the thumbnails of the overview, `attend --pool K`,
// and the window's map of a text longer than the screen, none of which holds the full [H, n, n].
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aw {

enum class PoolKind { Mean, Max };

// How one axis of `size` cells is cut into output cells: cell i covers [begin[i], end[i]).
struct PoolBins {
  std::vector<int64_t> begin, end;
  int64_t size = 0;  // cells of the axis pooled

  int64_t count() const { return static_cast<int64_t>(begin.size()); }
  // `out` cells as adaptive_avg_pool2d cuts them: [⌊i·size/out⌋, ⌈(i+1)·size/out⌉) (they may overlap).
  static PoolBins adaptive(int64_t size, int64_t out);
  // Blocks of `block` cells, the last one shorter when block does not divide size.
  static PoolBins blocks(int64_t size, int64_t block);
  // The region [first, end) as one bin per cell (pooled nowhere): a window onto the axis.
  static PoolBins cells(int64_t first, int64_t end);
};

// Feeds on tiles [H, rows, keys] of one layer (any order, each query row at most once) and gives the
// pooled map [H, row bins, column bins] in float32: each cell the mean (or maximum) of the weights
// it covers. Rows outside every row bin are skipped; mean pooling sums in float64 (cumulative sums
// along each axis), so the result equals adaptive_avg_pool2d of the whole map to float rounding.
class PooledAttention {
 public:
  PooledAttention(int64_t heads, PoolBins rows, PoolBins cols, PoolKind kind = PoolKind::Mean);
  void add(int64_t first_row, const torch::Tensor& tile);
  torch::Tensor result() const;

 private:
  torch::Tensor pool_columns(const torch::Tensor& tile) const;  // [H, rows, column bins], float64 sums or maxima

  PoolBins rows_, cols_;
  PoolKind kind_;
  torch::Tensor accumulated_;  // [H, row bins, column bins] float64: sums (mean) or maxima (max)
  torch::Tensor col_begin_, col_end_;  // long, for index_select
  int64_t col_block_ = 0;              // the columns' bins are equal blocks of this many keys (0: they are not)
};

// The thumbnail of one block's tiles (attention_thumbnail.h): at most kThumbnailSide per side.
PooledAttention thumbnail_pool(int64_t heads, int64_t rows, int64_t cols);

// A layer of a text of `length` tokens pooled as its tiles pass ([1, H, rows, n] in row order, as a
// forward's tile observer sees them): its block means of pool × pool tokens and its thumbnail.
struct PooledLayer {
  torch::Tensor map;        // [H, ⌈n/pool⌉, ⌈n/pool⌉] float32
  torch::Tensor thumbnail;  // [H, ≤64, ≤64] float32
};
class LayerPooler {
 public:
  LayerPooler(int64_t length, int64_t pool) : length_(length), pool_(pool) {}
  // The layer once its last row is in; nothing before. A tile at row 0 starts a new layer.
  std::optional<PooledLayer> add(int64_t first_row, const torch::Tensor& tile);

 private:
  int64_t length_, pool_;
  std::optional<PooledAttention> map_, thumbnail_;
};

// "1–8", "9–16", …, "1017–1020": the span of each block of `pool` tokens from token `first` up to
// `end` (0-based, exclusive), 1-based and inclusive.
std::vector<std::string> block_span_labels(int64_t first, int64_t end, int64_t pool);

}  // namespace aw
