// models/large_block_allocator.h — LibTorch's CPU allocator for this process: blocks of 1 MiB and more
// are mapped from the kernel directly and unmapped when freed, with a bounded cache of recently freed
// mappings for the next block of about their size; smaller blocks go to LibTorch's own allocator.
//
// Why not glibc's heap for the large blocks: with one arena for every thread (runtime.h) a free() that
// trims the heap's top runs its sbrk under the arena's lock, and any malloc on another thread waits.
// Cancelling a 1B model's long-text layer freed hundreds of MB of tiles on the worker while the window's
// thread blocked 122–175 ms in malloc. Mapped blocks are freed without that lock, and the cache keeps
// what a forward reuses layer after layer without faulting its pages in again.
#pragma once

#include <cstdint>

namespace aw {

struct LargeBlockStats {
  int64_t mapped_bytes = 0;  // held by live tensors
  int64_t cached_bytes = 0;  // freed, kept for reuse
  int64_t fresh_maps = 0;    // blocks mapped from the kernel
  int64_t reuses = 0;        // blocks served from the cache
};

// Makes this allocator LibTorch's CPU allocator. Idempotent; tensors made before keep their own.
void use_large_block_allocator();
// The blocks smaller than this go to LibTorch's default allocator.
constexpr int64_t kLargeBlockBytes = int64_t{1} << 20;
// At most this many bytes of freed mappings are kept for reuse; the oldest go first.
constexpr int64_t kLargeBlockCacheBytes = int64_t{1} << 30;
LargeBlockStats large_block_stats();
// Unmaps every cached mapping (release_free_memory calls it between a long text's layers).
void release_cached_large_blocks();

}  // namespace aw
