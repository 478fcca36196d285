// analysis/capture/pooled_attention.cpp — see pooled_attention.h.
#include "analysis/capture/pooled_attention.h"

#include "analysis/capture/attention_thumbnail.h"

#include <torch/torch.h>

#include <algorithm>
#include <limits>

namespace aw {

PoolBins PoolBins::adaptive(int64_t size, int64_t out) {
  PoolBins bins;
  bins.size = size;
  for (int64_t i = 0; i < out; ++i) {
    bins.begin.push_back(i * size / out);
    bins.end.push_back(((i + 1) * size + out - 1) / out);
  }
  return bins;
}

PoolBins PoolBins::blocks(int64_t size, int64_t block) {
  PoolBins bins;
  bins.size = size;
  for (int64_t first = 0; first < size; first += block) {
    bins.begin.push_back(first);
    bins.end.push_back(std::min(first + block, size));
  }
  return bins;
}

PoolBins PoolBins::cells(int64_t first, int64_t end) {
  PoolBins bins;
  bins.size = end;
  for (int64_t cell = first; cell < end; ++cell) {
    bins.begin.push_back(cell);
    bins.end.push_back(cell + 1);
  }
  return bins;
}

PooledAttention::PooledAttention(int64_t heads, PoolBins rows, PoolBins cols, PoolKind kind)
    : rows_(std::move(rows)), cols_(std::move(cols)), kind_(kind) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  accumulated_ = kind_ == PoolKind::Mean ? torch::zeros({heads, rows_.count(), cols_.count()}, f64)
                                         : torch::full({heads, rows_.count(), cols_.count()},
                                                       -std::numeric_limits<double>::infinity(), f64);
  const int64_t block = cols_.count() > 0 ? cols_.end[0] - cols_.begin[0] : 0;
  col_block_ = block;
  for (int64_t bin = 0; bin < cols_.count(); ++bin)
    if (cols_.begin[bin] != bin * block || cols_.end[bin] != std::min((bin + 1) * block, cols_.size)) col_block_ = 0;
  col_begin_ = torch::tensor(cols_.begin, torch::kLong);
  col_end_ = torch::tensor(cols_.end, torch::kLong);
}

torch::Tensor PooledAttention::pool_columns(const torch::Tensor& tile) const {
  const bool mean = kind_ == PoolKind::Mean;
  if (col_block_ > 0) {
    // Equal blocks: the keys padded to whole blocks (0 or −∞), one sum or max over each, in the tile's
    // float precision: a block's sum of at most a few hundred weights keeps float32's 1e-7, and this
    // is 30 times faster than converting the whole tile to float64 first.
    const auto values = tile.scalar_type() == torch::kFloat64 ? tile : tile.to(torch::kFloat32);  // (H, rows, keys)
    const int64_t padded = cols_.count() * col_block_;
    const double pad = mean ? 0.0 : -std::numeric_limits<double>::infinity();
    const auto blocks = torch::constant_pad_nd(values, {0, padded - values.size(2)}, pad)
                            .view({values.size(0), values.size(1), cols_.count(), col_block_});
    return (mean ? blocks.sum(3) : std::get<0>(blocks.max(3))).to(torch::kFloat64);
  }
  const auto values = tile.to(torch::kFloat64);
  if (mean) {
    // Column sums of every bin at once: cumulative sums (float64, as the differences of long running
    // sums need) with a 0 in front, end minus begin.
    auto running = torch::cat({torch::zeros({values.size(0), values.size(1), 1}, values.options()), values.cumsum(2)}, 2);
    const auto device = running.device();
    return running.index_select(2, col_end_.to(device)) - running.index_select(2, col_begin_.to(device));
  }
  std::vector<torch::Tensor> maxima;
  for (int64_t bin = 0; bin < cols_.count(); ++bin)
    maxima.push_back(std::get<0>(values.narrow(2, cols_.begin[bin], cols_.end[bin] - cols_.begin[bin]).max(2)));
  return torch::stack(maxima, 2);
}

void PooledAttention::add(int64_t first_row, const torch::Tensor& tile) {
  // A large tile is pooled a few rows at a time, so its copies (padded, or float64 with running sums:
  // up to 16 bytes a weight) stay at 4M weights instead of the whole tile the model made.
  const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(tile.size(0) * tile.size(2), 1));
  if (tile.size(1) > chunk) {
    for (int64_t first = 0; first < tile.size(1); first += chunk)
      add(first_row + first, tile.narrow(1, first, std::min(chunk, tile.size(1) - first)));
    return;
  }
  const int64_t end_row = first_row + tile.size(1);
  // The row bins this tile reaches (bins are sorted by their first row).
  const auto first_bin = std::upper_bound(rows_.end.begin(), rows_.end.end(), first_row) - rows_.end.begin();
  const auto last_bin = std::lower_bound(rows_.begin.begin(), rows_.begin.end(), end_row) - rows_.begin.begin();
  if (first_bin >= last_bin) return;
  const auto columns = pool_columns(tile).cpu();                                        // (H, rows, column bins)
  const auto running = kind_ == PoolKind::Mean
                           ? torch::cat({torch::zeros({columns.size(0), 1, columns.size(2)}, columns.options()),
                                         columns.cumsum(1)}, 1)
                           : torch::Tensor();
  for (int64_t bin = first_bin; bin < last_bin; ++bin) {
    const int64_t from = std::max(rows_.begin[bin], first_row) - first_row;
    const int64_t to = std::min(rows_.end[bin], end_row) - first_row;
    if (from >= to) continue;
    auto cell = accumulated_.select(1, bin);                                             // (H, column bins)
    if (kind_ == PoolKind::Mean) cell.add_(running.select(1, to) - running.select(1, from));
    else cell.copy_(torch::maximum(cell, std::get<0>(columns.narrow(1, from, to - from).max(1))));
  }
}

torch::Tensor PooledAttention::result() const {
  if (kind_ == PoolKind::Max) return accumulated_.to(torch::kFloat32);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  const auto row_counts = torch::tensor(rows_.end, f64) - torch::tensor(rows_.begin, f64);
  const auto col_counts = torch::tensor(cols_.end, f64) - torch::tensor(cols_.begin, f64);
  const auto counts = torch::outer(row_counts, col_counts);
  // Head by head: a long text's whole float64 quotient would double the accumulator (268 MB more for
  // Llama-1B's 32 heads at 1,024 × 1,024 blocks).
  auto means = torch::empty(accumulated_.sizes(), torch::kFloat32);
  for (int64_t head = 0; head < accumulated_.size(0); ++head) means[head].copy_(accumulated_[head] / counts);
  return means;
}

PooledAttention thumbnail_pool(int64_t heads, int64_t rows, int64_t cols) {
  return PooledAttention(heads, PoolBins::adaptive(rows, std::min(rows, kThumbnailSide)),
                         PoolBins::adaptive(cols, std::min(cols, kThumbnailSide)));
}

std::optional<PooledLayer> LayerPooler::add(int64_t first_row, const torch::Tensor& tile) {
  const auto block = tile.select(0, 0).to(torch::kCPU, torch::kFloat32);  // (H, rows, n)
  if (first_row == 0) {
    map_.emplace(block.size(0), PoolBins::blocks(length_, pool_), PoolBins::blocks(length_, pool_));
    thumbnail_.emplace(thumbnail_pool(block.size(0), length_, length_));
  }
  map_->add(first_row, block);
  thumbnail_->add(first_row, block);
  if (first_row + block.size(1) < length_) return std::nullopt;
  return PooledLayer{map_->result(), thumbnail_->result()};
}

std::vector<std::string> block_span_labels(int64_t first, int64_t end, int64_t pool) {
  std::vector<std::string> labels;
  for (int64_t block = first; block < end; block += pool)
    labels.push_back(std::to_string(block + 1) + "–" + std::to_string(std::min(block + pool, end)));
  return labels;
}

}  // namespace aw
