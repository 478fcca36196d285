// tests/test_distribution.cpp — models/distribution.h without a network: a stand-in for rank 1 of two
// records what it would send, a stand-in for rank 0 adds it where a collective would. Each rank must
// skip the other's batches (its own part differs from the whole), and rank 0's result after the
// exchange must equal one process's bit for bit, for every analysis engine that shares batches.
// The real c10d group runs in ctest's distributed.* cases (tests/distributed_tests.cmake).
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/head_importance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/distribution.h"
#include "models/training/evaluation.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <deque>
#include <type_traits>

namespace aw {
namespace {

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

class SharedBatches : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(3);
    config_ = test::tiny_config("transformer_lm");
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

TEST_F(SharedBatches, GateSweepEqualsOneProcess) {
  auto gates = torch::ones({3, config_.n_blocks, config_.max_heads()});
  gates[1][0][1] = 0;
  gates[2][1][2] = 0;
  const auto data = language_model_data(batches_);
  auto run = [&] {
    ExampleScores examples;
    auto metrics = evaluate_gate_settings(*model_, data, gates, 0, {}, 0, &examples);
    std::vector<double> values;
    for (const auto& metric : metrics) values.insert(values.end(), {metric.metric, metric.loss});
    return std::make_pair(values, examples.sums);
  };
  const auto [whole, part, shared] = three_runs(run);
  EXPECT_EQ(shared.first, whole.first);
  EXPECT_TRUE(torch::equal(shared.second, whole.second));
  EXPECT_NE(part.first, whole.first);  // rank 1 computed only its two batches
  EXPECT_TRUE(torch::equal(part.second[0], torch::zeros_like(part.second[0])));  // batch 0 is rank 0's
  EXPECT_TRUE(torch::equal(part.second[2], whole.second[2]));                    // batch 1 (rows 2–3) its own
}

TEST_F(SharedBatches, ImportanceEqualsOneProcess) {
  const auto data = language_model_data(batches_);
  for (const bool per_example : {false, true}) {
    auto run = [&] {
      const auto result = head_importance(*model_, "tiny", data, false, {}, {}, per_example);
      return std::make_tuple(result.scores, result.batches, result.examples);
    };
    const auto [whole, part, shared] = three_runs(run);
    EXPECT_EQ(shared, whole) << "per_example " << per_example;
    EXPECT_EQ(std::get<1>(part), 2);  // rank 1's batches
    EXPECT_EQ(std::get<1>(whole), 5);
  }
}

TEST_F(SharedBatches, AttentionStatsEqualOneProcess) {
  auto run = [&] {
    const auto result = attention_stats(*model_, "tiny", batches_, AttentionStatsSettings{});
    std::vector<double> values{static_cast<double>(result.windows)};
    for (const auto& row : result.heads)
      values.insert(values.end(), {row.ca, row.ha_mean, row.ha_std, row.ratio, row.uniform_ca, row.scaled_ha_std});
    return values;
  };
  const auto [whole, part, shared] = three_runs(run);
  EXPECT_EQ(shared, whole);
  EXPECT_EQ(part.front(), 4.0);  // rank 1 saw two batches of two windows
  EXPECT_EQ(whole.front(), 10.0);
}

}  // namespace
}  // namespace aw
