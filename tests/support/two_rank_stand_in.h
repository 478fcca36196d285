// tests/support/two_rank_stand_in.h — models/distribution.h without a network, for the engines that
// share batches between ranks: a stand-in for rank 1 of two records what it would send, a stand-in
// for rank 0 adds it where a collective would. three_runs gives an engine's result as one process,
// as rank 1 alone and as rank 0 after the exchange; the SharedBatches fixture is a tiny language
// model and five batches (rank 0 owns three, rank 1 two). The real c10d group runs in ctest's
// distributed.* cases (tests/app/cli/distributed_tests.cmake).
#pragma once

#include "models/checkpoint/checkpoint.h"
#include "models/distribution.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <deque>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

namespace aw::test {

// Rank `rank` of two. Rank 1 keeps a copy of everything it sums (its share); rank 0 adds rank 1's
// recorded shares in the same order, as Gloo's all-reduce would.
class TwoRankStandIn : public Distribution {
 public:
  TwoRankStandIn(int rank, std::deque<torch::Tensor>* exchanged) : rank_(rank), exchanged_(exchanged) {}
  int rank() const override { return rank_; }
  int world_size() const override { return 2; }
  void sum_over_processes(torch::Tensor& values) const override {
    if (rank_ == 1) {
      exchanged_->push_back(values.clone());
      return;
    }
    ASSERT_FALSE(exchanged_->empty()) << "rank 0 sums more often than rank 1";
    values += exchanged_->front().to(values.device());
    exchanged_->pop_front();
  }

 private:
  int rank_;
  std::deque<torch::Tensor>* exchanged_;
};

// Runs `engine` as one process, as rank 1 alone, and as rank 0 after rank 1; returns the three.
template <typename Engine>
auto three_runs(Engine engine) {
  std::deque<torch::Tensor> exchanged;
  const auto whole = engine();
  const TwoRankStandIn rank1(1, &exchanged), rank0(0, &exchanged);
  std::decay_t<decltype(whole)> part, shared;
  {
    DistributionScope scope(rank1);
    part = engine();
  }
  {
    DistributionScope scope(rank0);
    shared = engine();
  }
  EXPECT_TRUE(exchanged.empty()) << "rank 0 summed less often than rank 1";
  return std::make_tuple(whole, part, shared);
}

// External linkage: the TEST_Fs of several files of one executable share the fixture.
class SharedBatches : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(3);
    config_ = tiny_config("transformer_lm");
    model_ = create_model(config_);
    model_->module().eval();
    for (int b = 0; b < 5; ++b) {  // five batches: rank 0 owns three, rank 1 two
      ModelInput input;
      input.input_ids = torch::randint(0, config_.vocab_size, {2, 9}, torch::kLong);
      batches_.push_back(input);
    }
  }
  ModelConfig config_;
  std::shared_ptr<AttentionModel> model_;
  std::vector<ModelInput> batches_;
};

}  // namespace aw::test
