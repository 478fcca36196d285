#include "models/large_block_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <unordered_map>
#include <vector>

namespace aw {
namespace {

struct Mapping {
  void* address;
  size_t bytes;
};

// A cached mapping serves a request when it is at most this share larger (so that a cached block does
// not hold much more than its tensor needs).
constexpr size_t kSlackDivisor = 4;

size_t page_rounded(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

class LargeBlockAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    if (n < static_cast<size_t>(kLargeBlockBytes)) return c10::GetDefaultCPUAllocator()->allocate(n);
    void* address = take(page_rounded(n));
    return {address, address, &free_block, c10::Device(c10::DeviceType::CPU)};
  }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
  // LibTorch's raw_allocate/raw_deallocate (scratch buffers of some CPU kernels, F16 gelu among them)
  // free through one function for both kinds of block.
  c10::DeleterFnPtr raw_deleter() const override { return &free_any; }

  LargeBlockStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  void release_cache() {
    std::vector<Mapping> victims;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      victims.swap(cached_);
      stats_.cached_bytes = 0;
    }
    unmap(victims);
  }

  static LargeBlockAllocator& instance() {
    static auto* const allocator = new LargeBlockAllocator;  // never destroyed: tensors may outlive statics
    return *allocator;
  }

 private:
  static void free_block(void* address) { instance().give_back(address); }
  static void free_any(void* address) {
    if (!instance().give_back(address)) c10::GetDefaultCPUAllocator()->raw_deallocate(address);
  }

  static void unmap(const std::vector<Mapping>& mappings) {
    for (const auto& mapping : mappings) ::munmap(mapping.address, mapping.bytes);
  }

  // A cached mapping of about `bytes`, or a fresh one.
  void* take(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      size_t best = cached_.size();
      for (size_t i = 0; i < cached_.size(); ++i) {
        const size_t size = cached_[i].bytes;
        if (size < bytes || size > bytes + bytes / kSlackDivisor) continue;
        if (best == cached_.size() || size < cached_[best].bytes) best = i;
      }
      if (best != cached_.size()) {
        const Mapping found = cached_[best];
        cached_.erase(cached_.begin() + static_cast<std::ptrdiff_t>(best));
        stats_.cached_bytes -= static_cast<int64_t>(found.bytes);
        stats_.mapped_bytes += static_cast<int64_t>(found.bytes);
        ++stats_.reuses;
        live_.emplace(found.address, found.bytes);
        return found.address;
      }
    }
    void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (address == MAP_FAILED) {  // the cache's mappings may be what the kernel lacks
      release_cache();
      address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    TORCH_CHECK(address != MAP_FAILED, "not enough memory: tried to allocate ", bytes, " bytes");
    std::lock_guard<std::mutex> lock(mutex_);
    live_.emplace(address, bytes);
    stats_.mapped_bytes += static_cast<int64_t>(bytes);
    ++stats_.fresh_maps;
    return address;
  }

  // Keeps a freed block for reuse, unmapping the oldest cached ones beyond the cache's bound; the
  // unmapping happens outside the lock.
  // Whether `address` was one of this allocator's mappings.
  bool give_back(void* address) {
    std::vector<Mapping> victims;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = live_.find(address);
      if (found == live_.end()) return false;  // a small block, from LibTorch's allocator
      const Mapping freed{address, found->second};
      live_.erase(found);
      stats_.mapped_bytes -= static_cast<int64_t>(freed.bytes);
      cached_.push_back(freed);
      stats_.cached_bytes += static_cast<int64_t>(freed.bytes);
      size_t oldest = 0;
      while (stats_.cached_bytes > kLargeBlockCacheBytes) {
        victims.push_back(cached_[oldest]);
        stats_.cached_bytes -= static_cast<int64_t>(cached_[oldest].bytes);
        ++oldest;
      }
      cached_.erase(cached_.begin(), cached_.begin() + static_cast<std::ptrdiff_t>(oldest));
    }
    unmap(victims);
    return true;
  }

  std::mutex mutex_;
  std::unordered_map<void*, size_t> live_;
  std::vector<Mapping> cached_;  // oldest first
  LargeBlockStats stats_;
};

}  // namespace

void use_large_block_allocator() {
  static const bool once = [] {
    // Priority above the default allocator's registration, so that LibTorch keeps this one.
    c10::SetCPUAllocator(&LargeBlockAllocator::instance(), /*priority=*/1);
    return true;
  }();
  (void)once;
}

LargeBlockStats large_block_stats() { return LargeBlockAllocator::instance().stats(); }

void release_cached_large_blocks() { LargeBlockAllocator::instance().release_cache(); }

}  // namespace aw
