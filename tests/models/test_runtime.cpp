// tests/models/test_runtime.cpp — models/runtime.h: how many threads LibTorch and OpenBLAS get for F32 and
// BF16, asked for or not.
#include "models/runtime.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace aw {
namespace {

TEST(ReducedPrecision, Bf16UsesEveryCoreUnlessAskedOtherwise) {
  EXPECT_EQ(default_threads_for(torch::kFloat32), kDefaultThreads);
  EXPECT_EQ(default_threads_for(torch::kBFloat16), std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  const int before = torch::get_num_threads();
  EXPECT_EQ(configure_threads(3, torch::kBFloat16), 3);  // asked: asked wins
  EXPECT_EQ(configure_threads(0, torch::kBFloat16),
            std::getenv("AW_THREADS") ? std::atoi(std::getenv("AW_THREADS")) : default_threads_for(torch::kBFloat16));
  configure_threads(0);
  torch::set_num_threads(before);
}

// For F32 a thread count asked for goes to OpenBLAS's pool (one core for `--threads 1`) while LibTorch
// keeps one thread, so the two pools never compete; none asked for gives OpenBLAS its own default back.
TEST(Runtime, ThreadsAskedForGoToOpenBlasForF32) {
  if (blas_threads() < 0) GTEST_SKIP() << "the BLAS is not OpenBLAS";
  if (std::getenv("AW_THREADS")) GTEST_SKIP() << "AW_THREADS chooses the count here";
  const int torch_before = torch::get_num_threads();
  configure_threads(0);
  const int blas_default = blas_threads();
  EXPECT_EQ(configure_threads(1), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (1 thread)");
  EXPECT_EQ(configure_threads(3), kDefaultThreads);  // F32: LibTorch keeps its one thread
  EXPECT_EQ(blas_threads(), 3);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (3 threads)");
  EXPECT_EQ(configure_threads(3, torch::kBFloat16), 3);  // BF16: LibTorch's threads do the products
  EXPECT_EQ(blas_threads(), 3);
  configure_threads(0);
  EXPECT_EQ(blas_threads(), blas_default);
  EXPECT_EQ(torch::get_num_threads(), kDefaultThreads);
  torch::set_num_threads(torch_before);
}

// A worker thread that first computed under F32's one thread keeps it after another thread configures
// BF16 (OpenMP holds the count per thread): use_threads_for sets the model's count on the worker itself,
// BF16's and F32's in turn, and a count asked for with configure_threads reaches it too.
TEST(Runtime, AWorkerTakesTheThreadsOfTheModelItComputes) {
  if (std::getenv("AW_THREADS")) GTEST_SKIP() << "AW_THREADS chooses the count here";
  const int before = torch::get_num_threads();
  configure_threads(0);
  std::vector<int> seen;
  std::thread worker([&] {
    (torch::ones({64, 64}) * 2).sum();  // LibTorch takes its count on this thread here: F32's
    seen.push_back(torch::get_num_threads());
    std::thread([] { configure_threads(5, torch::kBFloat16); }).join();  // elsewhere, later: not here (1.13)
    seen.push_back(use_threads_for(torch::kBFloat16));
    seen.push_back(use_threads_for(torch::kFloat32));
    std::thread([] { configure_threads(0); }).join();
    seen.push_back(use_threads_for(torch::kBFloat16));
  });
  worker.join();
  EXPECT_EQ(seen, (std::vector<int>{kDefaultThreads, 5, kDefaultThreads,
                                    default_threads_for(torch::kBFloat16)}));
  torch::set_num_threads(before);
}

}  // namespace
}  // namespace aw
