// tests/analysis/evaluation/test_eval_per_example.cpp — `eval --per-example`: each window's loss and
// predicted tokens (a language model) and each example's correctness (a classifier) add up to the
// corpus metric, and a window's loss is the float64 cross-entropy of its own forward
// (analysis/evaluation/eval_descriptor.cpp).
#include "analysis/core/corpus_data.h"
#include "analysis/core/registry.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;

double number(const Cell& cell) { return std::holds_alternative<int64_t>(cell) ? std::get<int64_t>(cell) : std::get<double>(cell); }

TEST_F(DescriptorRun, PerExampleWindowsAddUpToThePerplexityAndEachIsItsOwnForward) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("eval").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("batch", "3");
  const auto report = analysis("eval")(request);
  const auto& table = report.tables.at("per_example");
  ASSERT_EQ(table.columns().size(), 4u);
  EXPECT_EQ(table.columns()[1].name, "tokens");

  // The windows as eval cut them, each alone, the loss summed by hand in float64.
  CorpusSettings corpus;
  corpus.path = dir_.file("corpus.txt");
  corpus.window = 8;
  corpus.batch = 1;
  const auto data = corpus_data(corpus, lm, "eval", {});
  ASSERT_EQ(table.rows().size(), data.inputs.size());
  double loss = 0, tokens = 0;
  torch::NoGradGuard no_grad;
  for (size_t window = 0; window < data.inputs.size(); ++window) {
    const auto& input = data.inputs[window];
    const auto logits = lm.model->forward(input, {}).logits[0].to(torch::kFloat64);
    const auto ids = input.input_ids[0];
    const int64_t length = input.attention_mask.defined() ? input.attention_mask[0].sum().item<int64_t>() : ids.size(0);
    double own = 0;
    for (int64_t i = 0; i + 1 < length; ++i)
      own -= torch::log_softmax(logits[i], -1)[ids[i + 1].item<int64_t>()].item<double>();
    const auto& row = table.rows()[window];
    EXPECT_EQ(number(row[0]), static_cast<double>(window + 1));
    EXPECT_EQ(number(row[1]), static_cast<double>(length - 1));
    EXPECT_NEAR(number(row[2]), own, 1e-4 * std::max(1.0, own)) << "window " << window + 1;
    EXPECT_NEAR(number(row[3]), own / (length - 1), 1e-4);
    loss += number(row[2]), tokens += number(row[1]);
  }
  // The same sums gathered per window and per batch: float32 rounding apart.
  EXPECT_NEAR(loss / tokens, report.record["loss"].get<double>(), 1e-6 * report.record["loss"].get<double>());
  EXPECT_EQ(tokens, report.record["count"].get<double>());
}

TEST_F(DescriptorRun, PerExampleClassificationsAddUpToTheAccuracy) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  AnalysisRequest request;
  request.models = {&lama};
  request.settings = analysis("eval").settings();
  request.settings.set("text", dir_.file("labelled.tsv"));
  const auto report = analysis("eval")(request);
  const auto& table = report.tables.at("per_example");
  ASSERT_EQ(table.rows().size(), 4u);
  EXPECT_EQ(table.columns()[1].name, "correct");
  double correct = 0;
  for (const auto& row : table.rows()) {
    EXPECT_TRUE(number(row[1]) == 0 || number(row[1]) == 1);
    correct += number(row[1]);
  }
  EXPECT_NEAR(correct / 4, report.record["accuracy"].get<double>(), 1e-12);
}

}  // namespace
}  // namespace aw
