// tests/analysis/heads/test_importance_descriptor.cpp — the importance descriptor's scores and CSV are
// head_importance's (analysis/heads/importance_descriptor)
#include "analysis/heads/head_importance.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/text/corpus.h"
#include "table/csv_format.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;

TEST_F(DescriptorRun, ImportanceScoresAreTheResultsScores) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("importance").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "8");
  request.settings.set("heads-off", "1.2");
  const auto report = analysis("importance")(request);
  // The windows built by hand, not through the descriptor's data reading; the gates too.
  const auto data = language_model_data(make_window_batches(read_token_corpus(dir_.file("corpus.txt"), *lm.tokenizer), 8, 8));
  const auto direct = head_importance(*lm.model, lm.name, data, true, gates_from_flags(lm.config, {{true, false, true}}));
  EXPECT_EQ(report.head_scores->values, direct.scores);
  auto expected = importance_table(direct);
  expected.meta("heads_off", "1.2");  // every table says which heads were off
  EXPECT_EQ(write_csv(report.tables.at("csv")), write_csv(expected));
}

}  // namespace
}  // namespace aw
