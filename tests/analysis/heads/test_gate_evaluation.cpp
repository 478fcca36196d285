// tests/analysis/heads/test_gate_evaluation.cpp — gate settings evaluated together score as each alone: batch
// limits, workers, per-example scores, two ranks and LAMA (analysis/heads/gate_evaluation)
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/parallel_workers.h"
#include "analysis/heads/head_importance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/lama.h"
#include "models/runtime.h"
#include "models/training/evaluation.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"
#include "tests/support/tiny_windows.h"
#include "tests/support/two_rank_stand_in.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::SharedBatches;
using test::TempDir;
using test::three_runs;
using test::tiny_batches;
using test::tiny_lama;
using test::two_documents;

TEST(GateEvaluation, SmallBatchRowLimitGivesTheSameNumbers) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto data = language_model_data(tiny_batches());
  auto settings = all_heads_on(loaded.config).unsqueeze(0).repeat({5, 1, 1});
  for (int64_t s = 1; s < 5; ++s) settings[s][1][(s - 1) % 3] = 0.25 * s;
  const auto together = evaluate_gate_settings(*loaded.model, data, settings, 1, {}, 64);
  const auto one_by_one = evaluate_gate_settings(*loaded.model, data, settings, 1, {}, 1);
  ASSERT_EQ(together.size(), 5u);
  for (size_t s = 0; s < 5; ++s) EXPECT_NEAR(together[s].metric, one_by_one[s].metric, 1e-4 * together[s].metric);
  EXPECT_THROW(evaluate_gate_settings(*loaded.model, classification_data({}), settings, 0), Error);
}

// A batch whose windows predict nothing (one token each) adds nothing: every setting and every
// importance score is that of the other batches alone, where it used to fail inside the loss.
TEST(GateEvaluation, ABatchThatPredictsNothingChangesNothing) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  auto batches = tiny_batches();
  const auto without = language_model_data(batches);
  ModelInput lone;
  lone.input_ids = torch::full({2, 1}, 3, torch::kLong);
  lone.attention_mask = torch::ones({2, 1}, torch::kLong);
  batches.push_back(lone);
  const auto with = language_model_data(batches);
  auto settings = all_heads_on(loaded.config).unsqueeze(0).repeat({3, 1, 1});
  settings[1][0][0] = 0.0;
  settings[2][1][1] = 0.5;
  const auto expected = evaluate_gate_settings(*loaded.model, without, settings, 0);
  const auto got = evaluate_gate_settings(*loaded.model, with, settings, 0);
  for (size_t s = 0; s < 3; ++s) EXPECT_NEAR(got[s].metric, expected[s].metric, 1e-6 * expected[s].metric);
  const auto importance_without = head_importance(*loaded.model, "m", without, /*normalize=*/false);
  const auto importance_with = head_importance(*loaded.model, "m", with, /*normalize=*/false);
  EXPECT_EQ(importance_with.batches, 2);
  for (size_t layer = 0; layer < importance_with.scores.size(); ++layer)
    for (size_t head = 0; head < importance_with.scores[layer].size(); ++head) {
      EXPECT_TRUE(std::isfinite(importance_with.scores[layer][head]));
      EXPECT_NEAR(importance_with.scores[layer][head], importance_without.scores[layer][head],
                  1e-6 * std::abs(importance_without.scores[layer][head]) + 1e-9);
    }
}

// Settings with their own first layers (the shared forward climbing from one to the next, in any
// order given) score what each scores alone from layer 0.
TEST(GateEvaluation, SettingsWithTheirOwnFirstLayersScoreAsEachAlone) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto data = language_model_data(tiny_batches());
  const auto layers = loaded.config.n_blocks;
  auto settings = all_heads_on(loaded.config).unsqueeze(0).repeat({6, 1, 1});
  const std::vector<int64_t> first_layers{layers, 1, 0, 1, layers - 1, 0};
  for (int64_t s = 1; s < 6; ++s) settings[s][first_layers[s]][s % 3] = 0.2 * s;
  const auto grouped = evaluate_gate_settings(*loaded.model, data, settings, first_layers, {}, 8);
  ASSERT_EQ(grouped.size(), 6u);
  for (int64_t s = 0; s < 6; ++s) {
    const auto alone = evaluate_gate_settings(*loaded.model, data, settings.narrow(0, s, 1), 0).front();
    EXPECT_NEAR(grouped[s].metric, alone.metric, 1e-5 * alone.metric) << "setting " << s;
    EXPECT_NEAR(grouped[s].loss, alone.loss, 1e-6) << "setting " << s;
  }
  EXPECT_NE(grouped[1].metric, grouped[0].metric);
}

// On the CPU the chunks of settings run on one worker per LibTorch thread, each computing
// single-threaded: the numbers are bit for bit those of one worker, and LibTorch gets its threads back.
TEST(GateEvaluation, SettingsOnSeveralWorkersGiveTheNumbersOfOne) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto data = language_model_data(tiny_batches());
  auto settings = all_heads_on(loaded.config).unsqueeze(0).repeat({7, 1, 1});
  for (int64_t s = 1; s < 7; ++s) settings[s][s % 2][(s - 1) % 3] = 0.0;
  const int before = torch::get_num_threads();
  torch::set_num_threads(3);
  ASSERT_EQ(cpu_workers(torch::kCPU), std::getenv("AW_ONE_WORKER") ? 1 : 3);
  const auto three_workers = evaluate_gate_settings(*loaded.model, data, settings, 0, {}, 1);
  EXPECT_EQ(torch::get_num_threads(), 3);
  torch::set_num_threads(1);
  const auto one_worker = evaluate_gate_settings(*loaded.model, data, settings, 0, {}, 1);
  torch::set_num_threads(before);
  ASSERT_EQ(three_workers.size(), 7u);
  for (size_t s = 0; s < 7; ++s) {
    EXPECT_EQ(three_workers[s].loss, one_worker[s].loss) << "setting " << s;
    EXPECT_EQ(three_workers[s].metric, one_worker[s].metric) << "setting " << s;
  }
}

// Three settings that differ from different layers up (so the shared forward splits into groups).
torch::Tensor three_settings(const ModelConfig& config, std::vector<int64_t>& first_layers) {
  auto gates = all_heads_on(config).unsqueeze(0).repeat({3, 1, 1});
  gates[1][1][0] = 0.0;
  gates[2][0][2] = 0.0;
  gates[2][1][1] = 0.0;
  first_layers = {config.n_blocks, 1, 0};
  return gates;
}

TEST(ExampleScores, LanguageModelWindowsEqualEachWindowEvaluatedAlone) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 16 * 4; ++i) ids.push_back(2 + (i * 5) % 17);
  auto batches = make_window_batches(ids, 16, 3);  // 3 + 1 windows
  // A padded row: the last window keeps 9 tokens, so it predicts 8.
  auto& last = batches.back();
  last.attention_mask = torch::ones_like(last.input_ids);
  last.attention_mask[0].narrow(0, 9, 7).zero_();
  std::vector<int64_t> first_layers;
  const auto gates = three_settings(loaded.config, first_layers);
  ExampleScores scores;
  const auto metrics = evaluate_gate_settings(*loaded.model, language_model_data(batches), gates, first_layers, {}, 2, &scores);
  ASSERT_EQ(scores.sums.sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(scores.metric_name, "perplexity");
  EXPECT_EQ(scores.counts[0].item<double>(), 15);
  EXPECT_EQ(scores.counts[3].item<double>(), 8);
  for (int64_t s = 0; s < 3; ++s) {
    // The examples add up to the metric …
    const double loss = scores.sums.select(1, s).sum().item<double>() / scores.counts.sum().item<double>();
    EXPECT_NEAR(std::exp(loss), metrics[s].metric, 1e-6 * metrics[s].metric) << s;  // float32 sums in both
    // … and each is its window's own loss.
    int64_t row = 0;
    for (const auto& batch : batches)
      for (int64_t r = 0; r < batch.input_ids.size(0); ++r, ++row) {
        const auto alone = batch.map([&](const torch::Tensor& t) { return t.narrow(0, r, 1); });
        const auto single = evaluate_gate_settings(*loaded.model, language_model_data({alone}), gates[s].unsqueeze(0), 0);
        EXPECT_NEAR(scores.sums[row][s].item<double>() / scores.counts[row].item<double>(), single.front().loss, 1e-5)
            << "window " << row << ", setting " << s;
      }
  }
}

TEST(ExampleScores, ClassifiedExamplesAreRightOrWrongAsTheirOwnForward) {
  torch::manual_seed(5);
  auto model = std::make_shared<LamaImpl>(test::tiny_lama_config("lama", "mean"));
  {
    torch::NoGradGuard no_grad;
    for (auto& parameter : model->parameters()) parameter.normal_(0.0, 0.5);
  }
  model->eval();
  ClassifierBatches batches;
  for (int64_t b = 0; b < 3; ++b) {
    ModelInput input;
    input.input_ids = torch::randint(2, 20, {4, 7}, torch::kLong);
    batches.inputs.push_back(input);
    batches.labels.push_back(torch::randint(0, 3, {4}, torch::kLong));
  }
  auto gates = torch::ones({2, 1, 3});
  gates[1][0][1] = 0.0;
  ExampleScores scores;
  const auto metrics = evaluate_gate_settings(*model, classification_data(batches), gates, 0, {}, 0, &scores);
  ASSERT_EQ(scores.sums.sizes(), (std::vector<int64_t>{12, 2}));
  EXPECT_TRUE(torch::equal(scores.counts, torch::ones({12}, torch::kFloat64)));
  for (int64_t s = 0; s < 2; ++s) {
    EXPECT_NEAR(scores.sums.select(1, s).mean().item<double>(), metrics[s].metric, 1e-12);
    ForwardOptions options;
    options.head_gates = gates[s];
    torch::NoGradGuard no_grad;
    for (int64_t b = 0; b < 3; ++b) {
      const auto right = model->forward(batches.inputs[b], options).logits.argmax(-1).eq(batches.labels[b]);
      for (int64_t r = 0; r < 4; ++r)
        EXPECT_EQ(scores.sums[b * 4 + r][s].item<double>(), right[r].item<bool>() ? 1.0 : 0.0) << b << "," << r;
    }
  }
}

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

TEST(Lama, GateSweepReusesTheEncoderAndMatchesGatedForwards) {
  auto model = tiny_lama();
  const auto input = two_documents();
  ClassifierBatches batches;
  batches.inputs = {input};
  batches.labels = {torch::tensor({0, 2}, torch::kLong)};
  const auto data = classification_data(batches);
  auto gates = torch::ones({3, 1, 3});
  gates[1][0][0] = 0.0;
  gates[2][0][2] = 0.0;
  const auto metrics = evaluate_gate_settings(*model, data, gates, 0);
  ASSERT_EQ(metrics.size(), 3u);
  for (int64_t s = 0; s < 3; ++s) {
    ForwardOptions options;
    options.head_gates = gates[s];
    torch::NoGradGuard no_grad;
    const auto logits = model->forward(input, options).logits;
    const double loss = torch::nn::functional::cross_entropy(logits, batches.labels[0]).item<double>();
    EXPECT_NEAR(metrics[s].loss, loss, 1e-5) << "setting " << s;
  }
}

}  // namespace
}  // namespace aw
