// tests/models/test_large_block_allocator.cpp — models/large_block_allocator.h: LibTorch's large CPU
// blocks are mappings of their own, a freed one serves the next block of about its size, the cache
// keeps at most its bound (the oldest go first), and small blocks stay with LibTorch's allocator.
#include "models/large_block_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdint>
#include <thread>

namespace aw {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// A float tensor of exactly `bytes` bytes (a multiple of 4), never touched, so that it costs no memory.
torch::Tensor untouched_block(int64_t bytes) { return torch::empty({bytes / 4}, torch::kFloat32); }

class LargeBlockAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    use_large_block_allocator();
    release_cached_large_blocks();
  }
  void TearDown() override { release_cached_large_blocks(); }
};

TEST_F(LargeBlockAllocator, ALargeBlockIsAMappingAndItsFreedMappingServesTheNextOne) {
  const auto before = large_block_stats();
  void* first_address = nullptr;
  {
    auto block = untouched_block(4 * kMiB);
    first_address = block.data_ptr();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first_address) % static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)), 0u);
    const auto held = large_block_stats();
    EXPECT_EQ(held.mapped_bytes - before.mapped_bytes, 4 * kMiB);
    EXPECT_EQ(held.fresh_maps - before.fresh_maps, 1);
  }
  const auto freed = large_block_stats();
  EXPECT_EQ(freed.mapped_bytes, before.mapped_bytes);
  EXPECT_EQ(freed.cached_bytes, 4 * kMiB);

  auto again = untouched_block(4 * kMiB - 4096);  // a page less: the cached block is close enough
  EXPECT_EQ(again.data_ptr(), first_address);
  const auto reused = large_block_stats();
  EXPECT_EQ(reused.reuses - before.reuses, 1);
  EXPECT_EQ(reused.fresh_maps - before.fresh_maps, 1);
  EXPECT_EQ(reused.cached_bytes, 0);
}

TEST_F(LargeBlockAllocator, ACachedBlockMuchLargerThanTheRequestIsNotTaken) {
  { auto large = untouched_block(8 * kMiB); }
  const auto before = large_block_stats();
  auto half = untouched_block(4 * kMiB);  // 8 MiB is more than a quarter over 4 MiB
  const auto after = large_block_stats();
  EXPECT_EQ(after.fresh_maps - before.fresh_maps, 1);
  EXPECT_EQ(after.reuses, before.reuses);
  EXPECT_EQ(after.cached_bytes, 8 * kMiB);
  auto close = untouched_block(7 * kMiB);  // 8 MiB is within a quarter over 7 MiB
  EXPECT_EQ(large_block_stats().reuses - before.reuses, 1);
}

TEST_F(LargeBlockAllocator, SmallBlocksStayWithLibTorchsAllocator) {
  const auto before = large_block_stats();
  auto small = untouched_block(kLargeBlockBytes - 4);
  const auto after = large_block_stats();
  EXPECT_EQ(after.mapped_bytes, before.mapped_bytes);
  EXPECT_EQ(after.fresh_maps, before.fresh_maps);
}

TEST_F(LargeBlockAllocator, TheCacheKeepsAtMostItsBoundAndDropsTheOldestFirst) {
  const int64_t block = 300 * kMiB;  // four of them are more than the 1-GiB bound
  std::vector<void*> addresses;
  {
    std::vector<torch::Tensor> blocks;
    for (int i = 0; i < 4; ++i) {
      blocks.push_back(untouched_block(block + i * 4096));  // sizes distinct, to tell them apart
      addresses.push_back(blocks.back().data_ptr());
    }
    for (auto& each : blocks) each = torch::Tensor();  // freed in order: the first is the oldest cached
  }
  EXPECT_EQ(large_block_stats().cached_bytes, 3 * block + (1 + 2 + 3) * 4096);
  auto newest = untouched_block(block + 3 * 4096);
  EXPECT_EQ(newest.data_ptr(), addresses[3]);
  auto oldest_size = untouched_block(block);  // its own block was unmapped; the next size serves it
  EXPECT_EQ(oldest_size.data_ptr(), addresses[1]);
  release_cached_large_blocks();
  EXPECT_EQ(large_block_stats().cached_bytes, 0);
}

TEST_F(LargeBlockAllocator, ABlockMadeOnOneThreadIsFreedOnAnotherAndComputesAsAnyTensor) {
  const auto before = large_block_stats();
  torch::Tensor made;
  std::thread([&] { made = torch::arange(kMiB, torch::kFloat64); }).join();  // 8 MiB
  const auto expected = static_cast<double>(kMiB) * static_cast<double>(kMiB - 1) / 2;
  EXPECT_DOUBLE_EQ(made.sum().item<double>(), expected);
  auto copy = made.clone();
  EXPECT_TRUE(torch::equal(copy, made));
  std::thread([&] { made = torch::Tensor(); }).join();
  EXPECT_EQ(large_block_stats().cached_bytes - before.cached_bytes, 8 * kMiB);
}

// Some kernels take scratch buffers through raw_allocate (F16 gelu on the CPU): large and small ones
// come back through the one raw deleter.
TEST_F(LargeBlockAllocator, RawBuffersOfBothSizesAreFreedThroughTheOneRawDeleter) {
  auto* allocator = c10::GetCPUAllocator();
  const auto before = large_block_stats();
  void* large = allocator->raw_allocate(2 * kMiB);
  void* small = allocator->raw_allocate(64);
  EXPECT_EQ(large_block_stats().mapped_bytes - before.mapped_bytes, 2 * kMiB);
  allocator->raw_deallocate(small);
  allocator->raw_deallocate(large);
  EXPECT_EQ(large_block_stats().mapped_bytes, before.mapped_bytes);
  EXPECT_EQ(large_block_stats().cached_bytes, 2 * kMiB);
  const auto x = torch::linspace(-3, 3, 4 * kMiB, torch::kFloat16);
  EXPECT_TRUE(torch::allclose(torch::gelu(x).to(torch::kFloat32), torch::gelu(x.to(torch::kFloat32)), 1e-2, 1e-2));
}

}  // namespace
}  // namespace aw
