// models/distribution.cpp — see distribution.h.
#include "models/distribution.h"

#include <torch/torch.h>

namespace aw {
namespace {

const Distribution kOneProcess;
const Distribution* installed = nullptr;

}  // namespace

const Distribution& current_distribution() { return installed ? *installed : kOneProcess; }

DistributionScope::DistributionScope(const Distribution& distribution) : previous_(installed) {
  installed = &distribution;
}

DistributionScope::~DistributionScope() { installed = previous_; }

BatchSums::BatchSums(int64_t batches, std::vector<int64_t> shape, const torch::TensorOptions& options) {
  shape.insert(shape.begin(), batches);
  rows_ = torch::zeros(shape, options);
}

torch::Tensor BatchSums::total(const Distribution& distribution) {
  distribution.sum_over_processes(rows_);
  auto sum = torch::zeros_like(rows_[0]);
  // One addition per batch in order, not rows_.sum(0), whose pairwise order a single process never used.
  for (int64_t batch = 0; batch < rows_.size(0); ++batch) sum += rows_[batch];
  return sum;
}

torch::Tensor collect_batch_rows(const std::vector<torch::Tensor>& batches, const std::vector<int64_t>& rows_per_batch,
                                 const torch::TensorOptions& options, const Distribution& distribution,
                                 const std::vector<int64_t>& row_shape) {
  TORCH_CHECK(batches.size() == rows_per_batch.size(), "collect_batch_rows: one row count per batch");
  std::vector<torch::Tensor> parts;
  for (size_t i = 0; i < batches.size(); ++i) {
    auto shape = row_shape;
    shape.insert(shape.begin(), rows_per_batch[i]);
    parts.push_back(batches[i].defined() ? batches[i].to(options) : torch::zeros(shape, options));
  }
  auto rows = torch::cat(parts);
  distribution.sum_over_processes(rows);
  return rows;
}

}  // namespace aw
