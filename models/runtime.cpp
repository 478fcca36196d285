// models/runtime.cpp — device, thread and logger set-up shared by the CLI, the GUI and the tests.
#include "models/runtime.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "models/errors.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <mutex>

namespace aw {

torch::Device resolve_device(const std::string& name) {
  const bool cuda_available = torch::cuda::is_available();
  if (name == "auto") return cuda_available ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (name == "cpu") return torch::Device(torch::kCPU);
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!cuda_available) throw Error("--device " + name + ": CUDA is not available on this machine (use cpu or auto)");
    int index = 0;
    if (name.size() > 5) {
      try {
        index = std::stoi(name.substr(5));
      } catch (const std::exception&) {
        throw Error("--device " + name + ": expected cuda:N");
      }
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index < 0 || index >= count)
      throw Error("--device " + name + ": there are " + std::to_string(count) + " CUDA devices");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw Error("--device " + name + ": expected auto, cpu, cuda or cuda:N");
}

std::string describe_device(const torch::Device& device) {
  if (device.is_cuda())
    return "CUDA device " + std::to_string(device.index()) + " of " + std::to_string(torch::cuda::device_count());
  const int threads = torch::get_num_threads();
  return "CPU (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

namespace {

// `requested` if > 0, else AW_THREADS, else 0 (unset).
int asked_threads(int requested) {
  if (requested > 0) return requested;
  if (const char* from_env = std::getenv("AW_THREADS")) return std::max(0, std::atoi(from_env));
  return 0;
}

std::atomic<int> last_asked{0};  // what the last configure_threads was asked for (0: unset)

int threads_for(int asked) { return asked > 0 ? asked : default_threads(); }

}  // namespace

int configure_threads(int requested) {
  const int asked = asked_threads(requested);
  last_asked = asked;
  torch::set_num_threads(threads_for(asked));
  return torch::get_num_threads();
}

int use_configured_threads() {
  const int asked = last_asked.load();
  const int wanted = threads_for(asked > 0 ? asked : asked_threads(0));
  // Set only when it differs: setting drops oneDNN's cached kernels.
  if (torch::get_num_threads() != wanted) torch::set_num_threads(wanted);
  return torch::get_num_threads();
}

int default_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

void configure_allocator() {
#ifdef __GLIBC__
  static const bool once = [] {
    mallopt(M_MMAP_MAX, 0);                 // large blocks from the heap, not fresh mmaps per tensor
    mallopt(M_TRIM_THRESHOLD, 1 << 30);     // return heap to the kernel only beyond 1 GiB free
    return true;
  }();
  (void)once;
#endif
}

void use_one_allocator_arena() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
#endif
}

void release_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::shared_ptr<spdlog::logger> logger(const std::string& name) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto existing = spdlog::get(name)) return existing;
  auto created = spdlog::stderr_color_mt(name);
  created->set_pattern("[%n] %v");
  return created;
}

}  // namespace aw
