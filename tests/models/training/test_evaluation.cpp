// tests/models/training/test_evaluation.cpp — evaluation (models/training/evaluation.h): per-class scores
// from the confusion matrix, the label-smoothed loss against its formula in float64, perplexity and
// accuracy shared between two ranks equal to one process, and the shipped samples' perplexity.
#include "models/checkpoint/checkpoint.h"
#include "models/nn/model.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "models/training/evaluation.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"
#include "tests/support/two_rank_stand_in.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::SharedBatches;
using test::three_runs;
using test::tiny_lama;
using test::two_documents;

TEST(ClassifierData, PerClassScoresFromTheConfusionMatrix) {
  // Rows true, columns predicted: class 0: 3 right, 1 → class 1; class 1: 2 right; class 2: 1 → class 0.
  const std::vector<std::vector<int64_t>> confusion = {{3, 1, 0}, {0, 2, 0}, {1, 0, 0}};
  const auto scores = per_class_scores(confusion);
  EXPECT_NEAR(scores[0].precision, 0.75, 1e-12);
  EXPECT_NEAR(scores[0].recall, 0.75, 1e-12);
  EXPECT_NEAR(scores[1].precision, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(scores[1].f1, 0.8, 1e-12);
  EXPECT_EQ(scores[2].f1, 0.0);
  EXPECT_EQ(scores[2].support, 1);
  EXPECT_NEAR(macro_f1(scores), (0.75 + 0.8 + 0.0) / 3.0, 1e-12);

  auto model = tiny_lama();
  ClassifierBatches batches;
  batches.inputs = {two_documents()};
  batches.labels = {torch::tensor({0, 2}, torch::kLong)};
  const auto result = evaluate_accuracy(*model, batches);
  ASSERT_EQ(result.confusion.size(), 3u);
  torch::NoGradGuard no_grad;
  const auto predicted = model->forward(two_documents()).logits.argmax(-1);
  EXPECT_EQ(result.confusion[0][predicted[0].item<int64_t>()], 1);
  EXPECT_EQ(result.confusion[2][predicted[1].item<int64_t>()], 1);
}

TEST(LabelSmoothing, EqualsTheSmoothedCrossEntropyWorkedOutInFloat64) {
  torch::manual_seed(2);
  const int64_t vocab = 7;
  const auto logits = torch::randn({2, 4, vocab});
  ModelInput input;
  input.input_ids = torch::tensor({{4, 5, 3}, {6, 3, 0}}, torch::kLong);
  input.decoder_input_ids = torch::tensor({{2, 5, 6, 3}, {2, 4, 3, 0}}, torch::kLong);
  input.decoder_attention_mask = torch::tensor({{1, 1, 1, 1}, {1, 1, 1, 0}}, torch::kLong);
  const double epsilon = 0.1;
  const auto sums = language_model_loss(logits, input, epsilon);
  const auto log_p = torch::log_softmax(logits.to(torch::kFloat64), -1);
  double expected = 0.0;
  int64_t count = 0;
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t t = 0; t + 1 < 4; ++t) {  // position t predicts decoder id t + 1
      if (input.decoder_attention_mask[row][t + 1].item<int64_t>() == 0) continue;
      const auto target = input.decoder_input_ids[row][t + 1].item<int64_t>();
      expected += -(1 - epsilon) * log_p[row][t][target].item<double>() - epsilon * log_p[row][t].mean().item<double>();
      ++count;
    }
  EXPECT_EQ(sums.count.item<double>(), count);
  EXPECT_NEAR(sums.total.item<double>(), expected, 1e-5);
  EXPECT_GT(std::abs(language_model_loss(logits, input).total.item<double>() - expected), 1e-3);
}

TEST_F(SharedBatches, PerplexityAndAccuracyEqualOneProcess) {
  auto perplexity = [&] {
    const auto result = evaluate_perplexity(*model_, batches_, {}, {}, true);
    return std::make_tuple(result.metric, result.loss, result.count, result.example_sums);
  };
  const auto [whole, part, shared] = three_runs(perplexity);
  EXPECT_EQ(std::get<0>(shared), std::get<0>(whole));
  EXPECT_EQ(std::get<2>(shared), std::get<2>(whole));
  EXPECT_TRUE(torch::equal(std::get<3>(shared), std::get<3>(whole)));
  EXPECT_LT(std::get<2>(part), std::get<2>(whole));

  torch::manual_seed(4);
  const auto classifier_config = test::tiny_lama_config();
  auto classifier = create_model(classifier_config);
  classifier->module().eval();
  ClassifierBatches labelled;
  for (int b = 0; b < 3; ++b) {
    ModelInput input;
    input.input_ids = torch::randint(0, classifier_config.vocab_size, {4, 7}, torch::kLong);
    labelled.inputs.push_back(input);
    labelled.labels.push_back(torch::randint(0, classifier_config.num_labels, {4}, torch::kLong));
  }
  auto accuracy = [&] {
    const auto result = evaluate_accuracy(*classifier, labelled, {}, {}, true);
    return std::make_tuple(result.metric, result.loss, result.confusion, result.example_sums);
  };
  const auto [whole_c, part_c, shared_c] = three_runs(accuracy);
  EXPECT_EQ(std::get<0>(shared_c), std::get<0>(whole_c));
  EXPECT_EQ(std::get<1>(shared_c), std::get<1>(whole_c));
  EXPECT_EQ(std::get<2>(shared_c), std::get<2>(whole_c));
  EXPECT_TRUE(torch::equal(std::get<3>(shared_c), std::get<3>(whole_c)));
  EXPECT_NE(std::get<2>(part_c), std::get<2>(whole_c));
}

class SampleCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleCheckpoint, LoadsAndHasAFiniteStablePerplexityOnTheDemoText) {
  const std::string dir = std::string(AW_SOURCE_DIR) + "/sample_data/" + GetParam();
  ASSERT_TRUE(fs::exists(dir + "/config.json")) << dir << " is missing (scripts/study/train-samples.sh makes it)";
  configure_threads(1);
  const auto loaded = load_checkpoint(dir, torch::kCPU);
  const auto ids = read_token_corpus(std::string(AW_SOURCE_DIR) + "/sample_data/demo_sentences.txt", *loaded.tokenizer);
  const auto batches = make_window_batches(ids, loaded.config.max_positions, 8);
  const auto first = evaluate_perplexity(*loaded.model, batches);
  const auto second = evaluate_perplexity(*loaded.model, batches);
  EXPECT_TRUE(std::isfinite(first.metric));
  EXPECT_EQ(first.metric, second.metric);  // eval mode: no dropout, same numbers every time
  // Far better than guessing uniformly over the vocabulary: the model learned something.
  EXPECT_LT(first.metric, loaded.config.vocab_size / 10.0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Shipped, SampleCheckpoint, ::testing::Values("vanilla_lm", "bet_sf", "bet_sg"));

}  // namespace
}  // namespace aw
