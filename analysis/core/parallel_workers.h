// analysis/core/parallel_workers.h — running independent pieces of an analysis side by side on the CPU.
// OpenBLAS spreads each matrix product over the cores, but the element-wise work between products
// (softmax, GELU, the loss's exp) runs on one core while the others wait. One worker per OpenBLAS
// thread, each with OpenBLAS on a single thread, keeps every core busy with both kinds of work.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>

namespace aw {

// Workers for an analysis on `device`: one per OpenBLAS thread on the CPU; 1 on a GPU, with a BLAS
// that is not OpenBLAS, or when the environment variable AW_ONE_WORKER is set (for comparisons).
int cpu_workers(const torch::Device& device);

// Runs task(0) … task(count − 1) on up to `workers` threads (this one among them), each taking the
// next index when it is done with one, in inference mode (the mode is per thread, so each worker
// sets it). With more than one worker OpenBLAS runs single-threaded meanwhile and gets its thread
// count back afterwards. The first exception a task throws is rethrown here.
void run_on_workers(int64_t count, int workers, const std::function<void(int64_t)>& task);

}  // namespace aw
