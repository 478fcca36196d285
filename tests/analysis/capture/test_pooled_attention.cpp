// tests/analysis/capture/test_pooled_attention.cpp — block pooling fed tile by tile
// (analysis/capture/pooled_attention.h) against LibTorch's pooling of the whole map and float64 loops:
// the thumbnails' adaptive bins, blocks that do not divide the map (mean and max), a window of cells,
// tiles in any order and rows outside every bin.
#include "analysis/capture/attention_thumbnail.h"
#include "analysis/capture/pooled_attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

namespace aw {
namespace {

torch::Tensor random_map(int64_t heads, int64_t rows, int64_t cols) {
  torch::manual_seed(rows * 131 + cols);
  return torch::softmax(torch::randn({heads, rows, cols}) * 3, -1);
}

// Feeds `map` [H, R, C] to `pool` in tiles of the given heights, last tile first.
torch::Tensor pooled_in_tiles(PooledAttention pool, const torch::Tensor& map, int64_t height) {
  std::vector<int64_t> firsts;
  for (int64_t first = 0; first < map.size(1); first += height) firsts.push_back(first);
  std::reverse(firsts.begin(), firsts.end());
  for (const auto first : firsts) pool.add(first, map.narrow(1, first, std::min(height, map.size(1) - first)));
  return pool.result();
}

TEST(PooledAttention, AdaptiveBinsEqualAdaptiveAvgPool2dOfTheWholeMap) {
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{100, 70}, {64, 64}, {9, 130}, {200, 3}}) {
    const auto map = random_map(3, rows, cols);
    const auto expected = torch::adaptive_avg_pool2d(map, {std::min<int64_t>(rows, 64), std::min<int64_t>(cols, 64)});
    for (const int64_t height : {1, 7, 1000}) {
      const auto got = pooled_in_tiles(thumbnail_pool(3, rows, cols), map, height);
      ASSERT_EQ(got.sizes(), expected.sizes());
      EXPECT_TRUE(torch::allclose(got, expected, 0, 1e-6)) << rows << "×" << cols << " in tiles of " << height;
    }
  }
  // A map that small already is its own thumbnail, value for value.
  const auto small = random_map(2, 5, 6);
  EXPECT_TRUE(torch::equal(pooled_in_tiles(thumbnail_pool(2, 5, 6), small, 2), small));
}

TEST(PooledAttention, BlocksThatDoNotDivideTheMapMeanAndMaxAsFloat64Loops) {
  const int64_t rows = 13, cols = 11, block = 4;  // blocks of 4, 4, 4, 1 rows and 4, 4, 3 columns
  const auto map = random_map(2, rows, cols);
  const auto values = map.to(torch::kFloat64);
  const auto a = values.accessor<double, 3>();
  for (const auto kind : {PoolKind::Mean, PoolKind::Max}) {
    const auto got = pooled_in_tiles(PooledAttention(2, PoolBins::blocks(rows, block), PoolBins::blocks(cols, block), kind),
                                     map, 3);
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{2, 4, 3}));
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          double sum = 0, largest = -1, count = 0;
          for (int64_t r = i * block; r < std::min(rows, (i + 1) * block); ++r)
            for (int64_t c = j * block; c < std::min(cols, (j + 1) * block); ++c) {
              sum += a[h][r][c];
              largest = std::max(largest, a[h][r][c]);
              count += 1;
            }
          const double expected = kind == PoolKind::Mean ? sum / count : largest;
          EXPECT_NEAR(got[h][i][j].item<double>(), expected, 1e-7) << h << " " << i << " " << j;
        }
  }
}

TEST(PooledAttention, AWindowOfCellsIsTheRegionAndRowsOutsideAreSkipped) {
  const auto map = random_map(2, 20, 15);
  // Rows 5–11 × columns 3–9, one bin per cell: the region itself.
  PooledAttention region(2, PoolBins::cells(5, 12), PoolBins::cells(3, 10));
  for (int64_t first = 0; first < 20; first += 4) region.add(first, map.narrow(1, first, 4));
  EXPECT_TRUE(torch::allclose(region.result(), map.narrow(1, 5, 7).narrow(2, 3, 7), 0, 1e-7));
}

}  // namespace
}  // namespace aw
