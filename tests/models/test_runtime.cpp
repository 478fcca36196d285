// tests/models/test_runtime.cpp — models/runtime.h: how many threads LibTorch (and so its BLAS) gets,
// asked for or not, and on which thread.
#include "models/runtime.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace aw {
namespace {

// AW_THREADS unset for one test, and put back as it was afterwards.
class WithoutThreadsVariable {
 public:
  WithoutThreadsVariable() {
    if (const char* value = std::getenv("AW_THREADS")) saved_ = value;
    unsetenv("AW_THREADS");
  }
  ~WithoutThreadsVariable() {
    if (saved_) setenv("AW_THREADS", saved_->c_str(), 1);
  }

 private:
  std::optional<std::string> saved_;
};

TEST(Runtime, EveryCoreUnlessAskedOtherwise) {
  const WithoutThreadsVariable unset;
  const int before = torch::get_num_threads();
  EXPECT_EQ(default_threads(), std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  EXPECT_EQ(configure_threads(3), 3);  // asked: asked wins
  EXPECT_EQ(torch::get_num_threads(), 3);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (3 threads)");
  EXPECT_EQ(configure_threads(1), 1);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (1 thread)");
  EXPECT_EQ(configure_threads(0), default_threads());
  setenv("AW_THREADS", "2", 1);
  EXPECT_EQ(configure_threads(0), 2);  // the variable when nothing is asked
  EXPECT_EQ(configure_threads(5), 5);  // an asked count over the variable
  unsetenv("AW_THREADS");
  torch::set_num_threads(before);
}

// A worker thread keeps the count it first computed with after another thread configures another one
// (OpenMP holds the count per thread): use_configured_threads sets the configured count on the worker.
TEST(Runtime, AWorkerTakesTheConfiguredThreadsWhenItAsks) {
  const WithoutThreadsVariable unset;
  const int before = torch::get_num_threads();
  configure_threads(1);
  std::vector<int> seen;
  std::thread worker([&] {
    (torch::ones({64, 64}) * 2).sum();  // LibTorch takes its count on this thread here: 1
    seen.push_back(torch::get_num_threads());
    std::thread([] { configure_threads(5); }).join();  // elsewhere, later
    seen.push_back(use_configured_threads());
    std::thread([] { configure_threads(0); }).join();
    seen.push_back(use_configured_threads());
  });
  worker.join();
  EXPECT_EQ(seen, (std::vector<int>{1, 5, default_threads()}));
  torch::set_num_threads(before);
}

}  // namespace
}  // namespace aw
