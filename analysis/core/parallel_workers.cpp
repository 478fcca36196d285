// analysis/core/parallel_workers.cpp — see parallel_workers.h.
#include "analysis/core/parallel_workers.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace aw {
namespace {

// While alive, LibTorch (and its BLAS) computes on the calling thread alone; LibTorch's count for
// threads that start computing meanwhile is 1 too (it is read from the last count set). The count
// this thread had comes back afterwards.
class SingleThreadedLibTorch {
 public:
  SingleThreadedLibTorch() : previous_(torch::get_num_threads()) { torch::set_num_threads(1); }
  ~SingleThreadedLibTorch() { torch::set_num_threads(previous_); }
  SingleThreadedLibTorch(const SingleThreadedLibTorch&) = delete;
  SingleThreadedLibTorch& operator=(const SingleThreadedLibTorch&) = delete;

 private:
  int previous_;
};

}  // namespace

int cpu_workers(const torch::Device& device) {
  if (!device.is_cpu() || std::getenv("AW_ONE_WORKER")) return 1;
  return std::max(1, torch::get_num_threads());
}

void run_on_workers(int64_t count, int workers, const std::function<void(int64_t)>& task) {
  const int64_t threads = std::min<int64_t>(std::max(1, workers), count);
  if (threads <= 1) {
    c10::InferenceMode inference;
    for (int64_t index = 0; index < count; ++index) task(index);
    return;
  }
  const SingleThreadedLibTorch one_thread_here;
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    c10::InferenceMode inference;
    if (torch::get_num_threads() != 1) torch::set_num_threads(1);  // a helper thread: one thread each
    try {
      for (int64_t index = next++; index < count; index = next++) task(index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> helpers;
  for (int64_t extra = 1; extra < threads; ++extra) helpers.emplace_back(work);
  work();
  for (auto& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace aw
