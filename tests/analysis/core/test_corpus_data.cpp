// tests/analysis/core/test_corpus_data.cpp — the data an analysis reads: windows refused or checked per model
// kind, translation pairs with each row's kind, and --metric bleu's decodings (analysis/core/corpus_data)
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/data/translation_scores.h"
#include "analysis/heads/gate_evaluation.h"
#include "models/checkpoint/checkpoint.h"
#include "table/csv_format.h"
#include "tests/support/descriptor_run.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::pairs_path;
using test::setting_error_of;
using test::TempDir;
using test::TinyTranslation;

TEST_F(DescriptorRun, WindowIsRefusedForAClassifierAndCheckedForALanguageModel) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.settings = analysis("eval").settings();
  request.settings.set("text", dir_.file("labelled.tsv"));
  request.settings.set("window", "8");
  request.models = {&lama};
  EXPECT_EQ(setting_error_of([&] { analysis("eval")(request); }),
            "--window applies to language models; lama is a lama classifier and reads each example whole (up to its "
            "16 positions)");
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "17");
  request.models = {&lm};
  EXPECT_EQ(setting_error_of([&] { analysis("eval")(request); }), "--window 17 exceeds the model's 16 positions");
}

TEST(TranslationAnalyses, DescriptorsReadPairsAndNameEachRowsKind) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const auto& ablate = *find_analysis("ablate");
  AnalysisRequest request;
  request.models = {&loaded};
  request.settings = ablate.settings();
  request.settings.set("text", pairs_path());
  request.settings.set("attention", "dec");
  const auto report = ablate(request);
  EXPECT_NE(write_csv(report.tables.at("csv")).find("kind,layer,head,metric,delta,delta_low,delta_high,p_value,p_adjusted,significant\ndec,1,1,"),
            std::string::npos);
  EXPECT_EQ(write_csv(report.tables.at("csv")).find("enc,"), std::string::npos);  // only the decoder's heads

  request.settings.set("window", "16");
  try {
    ablate(request);
    FAIL() << "no error";
  } catch (const SettingError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--window applies to language models; m is a transformer_mt translation model and reads each pair "
              "whole (up to its 32 positions)");
  }

  TempDir lm_dir;
  test::write_tiny_checkpoint(lm_dir.path(), test::tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(lm_dir.path(), torch::kCPU);
  AnalysisRequest lm_request;
  lm_request.models = {&lm};
  lm_request.settings = ablate.settings();
  lm_request.settings.set("text", pairs_path());
  lm_request.settings.set("attention", "cross");
  try {
    ablate(lm_request);
    FAIL() << "no error";
  } catch (const SettingError& error) {
    EXPECT_EQ(std::string(error.what()), "--attention cross: " + lm.name +
                                             " has no cross attention (a transformer_lm model has dec attention only)");
  }
  // Top tokens compares models of one kind: a CSV's layer column means one thing.
  AnalysisRequest top_request;
  top_request.models = {&loaded, &lm};
  top_request.settings = find_analysis("top-tokens")->settings();
  top_request.settings.set("text", "a cat");
  try {
    (*find_analysis("top-tokens"))(top_request);
    FAIL() << "no error";
  } catch (const SettingError& error) {
    EXPECT_EQ(std::string(error.what()), "top-tokens compares models of one kind: m is a transformer_mt translation "
                                         "model, " + lm.name + " is a transformer_lm language model");
  }
}

// The settings a BLEU analysis decodes under, each decoded alone (one source at a time) and scored.
double bleu_alone(SequenceToSequenceModel& model, const LoadedModel& loaded, const ForwardOptions& options,
                  int64_t beam) {
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  SearchSettings search;
  search.beam = beam;
  return score_translations(model, codec, read_translation_pairs(pairs_path()), search, 1, options).bleu.score;
}

TEST(TranslationBleuMetric, AblationAndDiagonalSweepScoreEachSettingAsItsOwnDecodingDoes) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m", 11);
  auto& model = *loaded.model->sequence_to_sequence();
  AnalysisRequest request;
  request.models = {&loaded};
  request.settings = find_analysis("ablate")->settings();
  request.settings.set("text", pairs_path());
  request.settings.set("metric", "bleu");
  request.settings.set("beam", "2");
  request.settings.set("attention", "cross");
  const auto report = (*find_analysis("ablate"))(request);
  const auto& result = report.tables.at("csv");
  EXPECT_EQ(result.meta_text("metric"), "bleu");
  EXPECT_DOUBLE_EQ(result.meta_number("baseline"), bleu_alone(model, loaded, {}, 2));
  ASSERT_EQ(result.row_count(), 2);
  for (int64_t row = 0; row < result.row_count(); ++row) {
    // cross-attention of decoder layer L is block Le + 2(L − 1) + 1
    const auto layer = static_cast<int64_t>(result.number(row, result.column("layer")));
    const auto head = static_cast<int64_t>(result.number(row, result.column("head")));
    const auto block = loaded.config.block_index(AttentionKind::Cross, layer - 1);
    ForwardOptions options;
    options.head_gates = all_heads_on(loaded.config);
    options.head_gates[block][head - 1] = 0.0;
    EXPECT_DOUBLE_EQ(result.number(row, result.column("metric")), bleu_alone(model, loaded, options, 2))
        << layer << "," << head;
  }
  EXPECT_NE(write_csv(report.tables.at("csv")).find("# model=m, metric=bleu, baseline="), std::string::npos);
  // BLEU falling is damage, as accuracy falling is.
  EXPECT_GT(damage("bleu", 30.0, 20.0), 0.0);

  AnalysisRequest sweep;
  sweep.models = {&loaded};
  sweep.settings = find_analysis("diag-sweep")->settings();
  sweep.settings.set("text", pairs_path());
  sweep.settings.set("metric", "bleu");
  sweep.settings.set("beam", "1");
  sweep.settings.set("factors", "0,mask");
  const auto points = (*find_analysis("diag-sweep"))(sweep).tables.at("csv");
  ASSERT_EQ(points.row_count(), 2);
  ForwardOptions scaled;
  scaled.diagonal = DiagonalIntervention::scale(0.0);
  EXPECT_DOUBLE_EQ(points.number(0, points.column("metric")), bleu_alone(model, loaded, scaled, 1));
  ForwardOptions masked;
  masked.diagonal = DiagonalIntervention::mask();
  EXPECT_DOUBLE_EQ(points.number(1, points.column("metric")), bleu_alone(model, loaded, masked, 1));

  // --metric bleu needs a translation model, and --beam needs --metric bleu.
  request.settings.set("metric", "loss");
  try {
    (*find_analysis("ablate"))(request);
    FAIL() << "no error";
  } catch (const SettingError& error) {
    EXPECT_EQ(std::string(error.what()), "--beam applies with --metric bleu (translations to score)");
  }
}

}  // namespace
}  // namespace aw
