// models/distribution.h — an analysis's data batches shared out between processes (attention-cli
// --distributed, models/process_group.h). Each process computes the batches it owns (batch i belongs
// to rank i mod world size); the per-batch sums are then summed over the processes, so every process
// holds every batch's contribution, and added up in batch order. The floating-point result is the
// one process's, bit for bit, and every process goes on with the same numbers (a greedy pruning
// step, a bootstrap) as if it had done all the work. Without a process group the share is all of it.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

class Distribution {
 public:
  virtual ~Distribution() = default;
  virtual int rank() const { return 0; }
  virtual int world_size() const { return 1; }
  bool owns(int64_t batch) const { return batch % world_size() == rank(); }
  bool shared() const { return world_size() > 1; }
  // Sums `values` element-wise over the processes, in place; every process gets the sum. A process
  // passes zeros where another computed, so each element is one process's value plus zeros: exact.
  virtual void sum_over_processes(torch::Tensor& values) const { (void)values; }
};

// The process group an analysis runs in: DistributionScope's, else one process owning every batch.
const Distribution& current_distribution();

// Makes `distribution` the current one for the life of the scope (the CLI wraps an analysis in it).
class DistributionScope {
 public:
  explicit DistributionScope(const Distribution& distribution);
  ~DistributionScope();
  DistributionScope(const DistributionScope&) = delete;
  DistributionScope& operator=(const DistributionScope&) = delete;

 private:
  const Distribution* previous_;
};

// Sums kept per batch, zero until the owning process writes its batch's row. total() collects the
// rows of every process and adds them in batch order, starting from zero: the same additions a
// single process makes with `sum += batch_sum` after each batch.
class BatchSums {
 public:
  BatchSums(int64_t batches, std::vector<int64_t> shape, const torch::TensorOptions& options);
  torch::Tensor row(int64_t batch) { return rows_[batch]; }
  torch::Tensor total(const Distribution& distribution);

 private:
  torch::Tensor rows_;  // [batches, shape…]
};

// Every batch's per-example values ([rows_per_batch[i], row_shape…] each), in batch order: the
// batches this process computed (undefined elsewhere) filled in from the other processes.
torch::Tensor collect_batch_rows(const std::vector<torch::Tensor>& batches, const std::vector<int64_t>& rows_per_batch,
                                 const torch::TensorOptions& options, const Distribution& distribution,
                                 const std::vector<int64_t>& row_shape = {});

}  // namespace aw
