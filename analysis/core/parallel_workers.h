// analysis/core/parallel_workers.h — running independent pieces of an analysis side by side on the CPU.
// LibTorch spreads each operation over its threads, but small operations (a sweep's many short
// rows) leave the cores waiting on each other between them. One worker per LibTorch thread, each
// computing single-threaded, keeps every core busy instead.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <functional>

namespace aw {

// Workers for an analysis on `device`: one per LibTorch thread of the calling thread on the CPU; 1 on
// a GPU, or when the environment variable AW_ONE_WORKER is set (for comparisons).
int cpu_workers(const torch::Device& device);

// Runs task(0) … task(count − 1) on up to `workers` threads (this one among them), each taking the
// next index when it is done with one, in inference mode (the mode is per thread, so each worker
// sets it). With more than one worker each computes single-threaded, and this thread gets its
// LibTorch thread count back afterwards. The first exception a task throws is rethrown here.
void run_on_workers(int64_t count, int workers, const std::function<void(int64_t)>& task);

}  // namespace aw
