// tests/test_translation_analysis.cpp — what issue 12 adds on top of the translation model itself:
// training a transformer_mt (loss falls, the folder carries its spm.model, resume continues bit for
// bit), the label-smoothed loss against its formula, and the analyses per attention kind — head
// importance against central differences in float64, ablation against direct gated forwards, real
// pruning against the gated model, the decoder's Table 1 statistics against the captured attention,
// the BLEU of batched decoding against one-by-one decoding, and the descriptors' kind columns and
// --attention errors.
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "analysis/heads/pruning_study.h"
#include "table/csv_format.h"
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/heads/head_removal.h"
#include "analysis/attention_stats/top_tokens.h"
#include "analysis/capture/translation_capture.h"
#include "analysis/core/registry.h"
#include "analysis/evaluation/translation_scores.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/text/tokenizer.h"
#include "models/training/evaluation.h"
#include "models/training/trainer.h"
#include "models/translation/translation_data.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <any>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::file_bytes;

namespace fs = std::filesystem;
using test::TempDir;

std::string pairs_path() { return std::string(AW_SOURCE_DIR) + "/tests/fixtures/pairs_en_fr.tsv"; }

// A SentencePiece model of the fixture pairs (both sides) and a tiny transformer_mt config over it:
// 2 encoder layers, 1 decoder layer (blocks enc 0, 1, dec 2, cross 3), 2 heads, d 8, BET(SF) in the
// decoder, dropout 0.
struct TinyTranslation {
  TempDir dir;
  std::string spm;
  ModelConfig config;

  explicit TinyTranslation(bool bird_eye = true, double dropout = 0.0) {
    std::vector<std::string> sentences;
    for (const auto& pair : read_translation_pairs(pairs_path())) {
      sentences.push_back(pair.source);
      sentences.push_back(pair.target);
    }
    train_sentencepiece(sentences, dir.file("spm"), 60, "bpe", 1);
    spm = dir.file("spm.model");
    const auto pieces = load_sentencepiece_tokenizer(spm, "", false)->vocab_size();
    config = parse_model_config({{"model_type", "transformer_mt"}, {"vocab_size", pieces}, {"encoder_layers", 2},
                                 {"decoder_layers", 1}, {"n_heads", 2}, {"d_model", 8}, {"d_ff", 16},
                                 {"max_positions", 32}, {"norm", "pre"}, {"dropout", dropout},
                                 {"decoder_bird_eye", bird_eye}},
                                "tiny transformer_mt");
  }

  std::vector<std::string> pieces() const {
    const auto tokenizer = load_sentencepiece_tokenizer(spm, "", false);
    std::vector<std::string> list;
    for (int64_t id = 0; id < tokenizer->vocab_size(); ++id) list.push_back(tokenizer->token_text(id));
    return list;
  }

  // A randomly initialised (seeded) checkpoint folder, loaded.
  LoadedModel checkpoint(const std::string& name, uint64_t seed = 5) const {
    torch::manual_seed(seed);
    auto model = create_model(config);
    {
      // Lively weights: the default initialisation leaves a tiny model's attention near uniform.
      torch::NoGradGuard no_grad;
      for (auto& parameter : model->module().parameters())
        if (parameter.dim() == 2) parameter.normal_(0.0, 0.4);
    }
    save_native_checkpoint(dir.file(name), *model, pieces(), torch::kFloat32, spm);
    return load_checkpoint(dir.file(name), torch::kCPU);
  }

  EvaluationData data(const LoadedModel& loaded, int64_t batch = 8) const {
    const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
    return language_model_data(pair_batches(
        encode_pairs(read_translation_pairs(pairs_path()), codec, loaded.config.max_positions, 0), batch));
  }
};

TrainSettings tiny_settings(const std::string& out, int64_t epochs) {
  TrainSettings settings;
  settings.train_path = pairs_path();
  settings.valid_path = pairs_path();
  settings.out_dir = out;
  settings.epochs = epochs;
  settings.batch = 4;
  settings.lr = 1e-2;
  settings.warmup_steps = 5;
  settings.seed = 3;
  settings.label_smoothing = 0.1;
  settings.log_every = 1000;
  return settings;
}

TEST(TranslationImportance, EqualsCentralDifferencesOfTheLossInEveryKindsGates) {
  TinyTranslation tiny;
  auto loaded = tiny.checkpoint("m");
  loaded.model->module().to(torch::kFloat64);
  const auto data = tiny.data(loaded, 10);
  ASSERT_EQ(data.inputs.size(), 2u);
  const auto raw = head_importance(*loaded.model, "m", data, /*normalize=*/false);
  auto loss_at = [&](const ModelInput& batch, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    const auto logits = loaded.model->forward(batch, options).logits;  // [B, m, V] over the decoder ids
    const int64_t m = logits.size(1);
    const auto log_p = torch::log_softmax(logits.narrow(1, 0, m - 1), -1);
    const auto targets = batch.decoder_input_ids.narrow(1, 1, m - 1).unsqueeze(-1);
    const auto keep = batch.decoder_attention_mask.narrow(1, 1, m - 1).to(torch::kFloat64);
    return (-(log_p.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  double largest = 0.0;
  for (int64_t block = 0; block < 4; ++block)
    for (int64_t head = 0; head < 2; ++head) {
      double expected = 0.0;
      for (const auto& batch : data.inputs) {
        auto plus = torch::ones({4, 2}, torch::kFloat64), minus = torch::ones({4, 2}, torch::kFloat64);
        plus[block][head] += step;
        minus[block][head] -= step;
        expected += std::abs((loss_at(batch, plus) - loss_at(batch, minus)) / (2 * step)) / 2.0;
      }
      largest = std::max(largest, expected);
      EXPECT_NEAR(raw.scores[block][head], expected, 1e-6 + 1e-5 * expected) << block << "," << head;
    }
  EXPECT_GT(largest, 1e-3) << "the gates do not matter: the test would prove nothing";
  auto selected = raw;
  selected.blocks = {3};
  std::ostringstream expected_rows;
  expected_rows.precision(6);
  expected_rows << "kind,layer,head,importance\ncross,1,1," << raw.scores[3][0] << "\ncross,1,2," << raw.scores[3][1]
                << "\n";
  const auto csv = write_csv(importance_table(selected));
  EXPECT_EQ(csv.substr(csv.find('\n') + 1), expected_rows.str());
}

TEST(TranslationAblation, EachHeadsMetricIsTheGatedModelsPerplexity) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const auto data = tiny.data(loaded, 6);
  const auto cross_and_dec = std::vector<int64_t>{2, 3};
  const auto result = ablate_heads(*loaded.model, "m", data, AblationMode::Single, {}, {}, cross_and_dec);
  ASSERT_EQ(result.heads.size(), 4u);
  const auto baseline = evaluate_perplexity(*loaded.model, data.inputs).metric;
  EXPECT_NEAR(result.baseline, baseline, 1e-6 * baseline);
  double largest = 0.0;
  for (const auto& effect : result.heads) {
    ForwardOptions options;
    options.head_gates = all_heads_on(loaded.config);
    options.head_gates[effect.layer - 1][effect.head - 1] = 0.0;
    const auto gated = evaluate_perplexity(*loaded.model, data.inputs, options).metric;  // one whole forward
    EXPECT_NEAR(effect.metric, gated, 1e-5 * gated) << effect.layer << "," << effect.head;
    largest = std::max(largest, std::abs(effect.delta));
  }
  EXPECT_GT(largest, 1e-3);
  const auto csv = write_csv(ablation_table(result));
  EXPECT_NE(csv.find("\nkind,layer,head,metric,delta\ndec,1,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\ncross,1,2,"), std::string::npos) << csv;
  const auto table = ablation_table(result);
  EXPECT_EQ(table.text(2, table.column("kind")), "cross");
  // All-but-one per block: Michel Table 2's layout, one best head per (kind, layer).
  const auto table2 = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne);
  ASSERT_EQ(table2.best_per_layer.size(), 4u);
  const auto table2_csv = write_csv(ablation_table(table2));
  EXPECT_NE(table2_csv.find("kind,layer,best_head,metric,delta\nenc,1,"), std::string::npos) << table2_csv;
  EXPECT_NE(table2_csv.find("\nenc,2,"), std::string::npos);
}

TEST(TranslationPruning, RemovedHeadsComputeWhatTheGatedModelComputes) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const std::vector<HeadRef> removed{{0, 1}, {2, 0}, {3, 1}};  // one head of enc 1, dec 1 and cross 1
  const auto pruned = remove_heads(*loaded.model, removed);
  EXPECT_EQ(pruned->config().heads_per_block, (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_LT(count_parameters(*pruned), count_parameters(*loaded.model));
  const auto batch = tiny.data(loaded, 20).inputs.front();
  ForwardOptions gated;
  gated.head_gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gated.head_gates[head.layer][head.head] = 0.0;
  torch::NoGradGuard no_grad;
  const auto expected = loaded.model->forward(batch, gated).logits;
  const auto actual = pruned->forward(batch, {}).logits;
  EXPECT_TRUE(torch::allclose(actual, expected, 1e-5, 1e-5)) << test::max_difference(actual, expected);
  // Saved with its spm.model and loaded back, it is the same model.
  save_native_checkpoint(tiny.dir.file("pruned"), *pruned, tiny.pieces(), torch::kFloat32,
                         loaded.dir + "/spm.model");
  const auto reloaded = load_checkpoint(tiny.dir.file("pruned"), torch::kCPU);
  const auto again = reloaded.model->forward(batch, {}).logits;
  EXPECT_TRUE(torch::allclose(again, expected, 1e-5, 1e-5)) << test::max_difference(again, expected);
}

TEST(TranslationScores, BatchedDecodingEqualsOneByOneAndBleuScoresItsTexts) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  auto* model = loaded.model->sequence_to_sequence();
  ASSERT_NE(model, nullptr);
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto pairs = read_translation_pairs(pairs_path());
  SearchSettings search;
  search.beam = 3;
  search.max_new_tokens = 8;
  const auto together = score_translations(*model, codec, pairs, search, 7);
  const auto alone = score_translations(*model, codec, pairs, search, 1);
  ASSERT_EQ(together.hypotheses.size(), pairs.size());
  EXPECT_EQ(together.hypotheses, alone.hypotheses);
  std::vector<std::string> references;
  for (const auto& pair : pairs) references.push_back(pair.target);
  EXPECT_EQ(together.bleu.score, corpus_bleu(together.hypotheses, references).score);
  EXPECT_EQ(together.chrf, corpus_chrf(together.hypotheses, references));
  // A perfect system scores 100: BLEU of the references against themselves.
  EXPECT_DOUBLE_EQ(corpus_bleu(references, references).score, 100.0);
}

// CA, HA(μ), HA(σ) of one block worked out in float64 from the captured attention: the diagonal
// of the valid rows, and the entries before it (causal) or every other valid entry (the encoder).
DiagonalStats worked_stats(AttentionModel& model, const std::vector<ModelInput>& batches, int64_t block, bool causal) {
  double diagonal = 0, lower = 0, lower_squares = 0;
  int64_t diagonal_count = 0, lower_count = 0;
  for (const auto& batch : batches) {
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    torch::NoGradGuard no_grad;
    const auto attention = model.forward(batch, options).attention[block].to(torch::kFloat64);  // [B, H, n, n]
    const auto mask = causal ? batch.decoder_attention_mask : batch.attention_mask;
    for (int64_t b = 0; b < attention.size(0); ++b)
      for (int64_t h = 0; h < attention.size(1); ++h)
        for (int64_t i = 0; i < attention.size(2); ++i) {
          if (mask[b][i].item<int64_t>() == 0) continue;
          diagonal += attention[b][h][i][i].item<double>();
          ++diagonal_count;
          for (int64_t j = 0; j < (causal ? i : attention.size(3)); ++j) {
            if (j == i || mask[b][j].item<int64_t>() == 0) continue;
            const double value = attention[b][h][i][j].item<double>();
            lower += value;
            lower_squares += value * value;
            ++lower_count;
          }
        }
  }
  DiagonalStats stats;
  stats.diagonal_entries = diagonal_count;
  stats.lower_entries = lower_count;
  stats.ca = diagonal / diagonal_count;
  stats.ha_mean = lower / lower_count;
  stats.ha_std = std::sqrt(lower_squares / lower_count - stats.ha_mean * stats.ha_mean);
  stats.ratio = stats.ca / stats.ha_mean;
  return stats;
}

void expect_stats(const DiagonalStats& row, const DiagonalStats& worked, const std::string& what) {
  EXPECT_EQ(row.diagonal_entries, worked.diagonal_entries) << what;
  EXPECT_EQ(row.lower_entries, worked.lower_entries) << what;
  EXPECT_NEAR(row.ca, worked.ca, 1e-6) << what;
  EXPECT_NEAR(row.ha_mean, worked.ha_mean, 1e-6) << what;
  EXPECT_NEAR(row.ha_std, worked.ha_std, 1e-6) << what;
  EXPECT_NEAR(row.ratio, worked.ratio, 1e-5) << what;
}

TEST(TranslationStats, DecoderAndEncoderRowsEqualTheCapturedAttentionWorkedOutInFloat64) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const auto data = tiny.data(loaded, 6);  // padded source and decoder rows in every batch
  AttentionStatsSettings settings;
  settings.blocks = {0, 2};  // the encoder's first layer (not causal) and the decoder's self-attention
  const auto result = attention_stats(*loaded.model, "m", data.inputs, settings);
  ASSERT_EQ(result.layers.size(), 2u);
  ASSERT_EQ(result.heads.size(), 4u);
  expect_stats(result.layers[0], worked_stats(*loaded.model, data.inputs, 0, /*causal=*/false), "enc 1");
  expect_stats(result.layers[1], worked_stats(*loaded.model, data.inputs, 2, /*causal=*/true), "dec 1");
  const auto csv = write_csv(attention_stats_table({result}, false));
  EXPECT_NE(csv.find("\nmodel,kind,layer,CA,HA_mean,HA_std,Ratio,uniform_CA,uniform_HA_mean,uniform_HA_std,"
                     "uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,HA_x_keys_std\nm,enc,1,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nm,dec,1,"), std::string::npos) << csv;
  // The uniform baseline over the same rows, in closed form from the masks' lengths n: an encoder row
  // spreads 1/n over all n keys (diagonal 1/n, n − 1 off-diagonal entries of 1/n); a decoder row i
  // spreads 1/(i + 1) over keys 0..i.
  double enc[5] = {0, 0, 0, 0, 0}, dec[5] = {0, 0, 0, 0, 0};  // diagonal sum, rows, lower sum, square sum, entries
  for (const auto& batch : data.inputs) {
    const auto source_lengths = batch.attention_mask.ne(0).sum(1).contiguous();
    for (int64_t b = 0; b < source_lengths.size(0); ++b) {
      const double n = static_cast<double>(source_lengths[b].item<int64_t>());
      enc[0] += 1, enc[1] += n, enc[2] += n - 1, enc[3] += (n - 1) / n, enc[4] += n * (n - 1);
    }
    const auto target_lengths = batch.predicted_mask().ne(0).sum(1).contiguous();
    for (int64_t b = 0; b < target_lengths.size(0); ++b)
      for (double i = 0; i < static_cast<double>(target_lengths[b].item<int64_t>()); ++i)
        dec[0] += 1 / (i + 1), dec[1] += 1, dec[2] += i / (i + 1), dec[3] += i / ((i + 1) * (i + 1)), dec[4] += i;
  }
  for (const auto& [row, sums] : {std::pair{result.layers[0], enc}, std::pair{result.layers[1], dec}}) {
    const double ha_mean = sums[2] / sums[4];
    EXPECT_NEAR(row.uniform_ca, sums[0] / sums[1], 1e-12);
    EXPECT_NEAR(row.uniform_ha_mean, ha_mean, 1e-12);
    EXPECT_NEAR(row.uniform_ha_std, std::sqrt(sums[3] / sums[4] - ha_mean * ha_mean), 1e-12);
  }
  // Through the descriptor: all = encoder and decoder self-attention; cross has no diagonal.
  AnalysisRequest request;
  request.models = {&loaded};
  request.settings = find_analysis("stats")->settings();
  request.settings.set("text", pairs_path());
  const auto all = (*find_analysis("stats"))(request).tables.at("csv");
  std::vector<std::string> kinds;
  for (int64_t row = 0; row < all.row_count(); ++row) kinds.push_back(all.text(row, all.column("kind")));
  EXPECT_EQ(kinds, (std::vector<std::string>{"enc", "enc", "dec"}));
  request.settings.set("attention", "cross");
  try {
    (*find_analysis("stats"))(request);
    FAIL() << "no error";
  } catch (const SettingError& error) {
    EXPECT_EQ(std::string(error.what()), "--attention cross: CA and HA are measured on self-attention, where a "
                                         "token's own position is the diagonal; use enc, dec or all");
  }
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

TEST(TranslationBleuMetric, SettingsDecodedTogetherTranslateAsEachDecodedAlone) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m", 11);
  auto& model = *loaded.model->sequence_to_sequence();
  SearchSettings search;
  search.beam = 3;
  search.max_new_tokens = 8;
  const auto codec = std::make_shared<const TranslationCodec>(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  auto task = make_bleu_task(loaded.config, codec, read_translation_pairs(pairs_path()), search);
  task.chunk_sources = 7;  // 20 sources: chunks of 7, 7 and 6
  auto gates = all_heads_on(loaded.config).unsqueeze(0).repeat({3, 1, 1});
  gates[1][3][0] = 0.0;  // cross head 1 off
  gates[2][2][1] = 0.0;  // dec head 2 off
  gates[2][0][0] = 0.0;  // and enc 1 head 1
  // 16 rows a search: two settings of a 7-source chunk side by side, the third alone.
  const auto together = score_gate_settings(model, task, gates, {}, {}, 16);
  ASSERT_EQ(together.size(), 3u);
  bool some_differ = false;
  for (int64_t s = 0; s < 3; ++s) {
    ForwardOptions options;
    options.head_gates = gates[s];
    const auto alone = score_translations(model, *codec, read_translation_pairs(pairs_path()), search, 1, options);
    EXPECT_EQ(together[s].hypotheses, alone.hypotheses) << "setting " << s;
    EXPECT_EQ(together[s].bleu.score, alone.bleu.score);
    EXPECT_EQ(together[s].chrf, alone.chrf);
    some_differ = some_differ || together[s].hypotheses != together[0].hypotheses;
  }
  EXPECT_TRUE(some_differ);  // the gates change some translation
}

TEST(TranslationTopTokens, CrossRowsAreTheTopSourceTokensOfTheCapturedHeadMean) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m", 7);
  auto& model = *loaded.model->sequence_to_sequence();
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  SearchSettings search;
  search.beam = 2;
  search.max_new_tokens = 6;
  const std::vector<TopTokensRequest> sentences{{"the cat sleeps", -1}, {"a dog", 2}};
  const auto rows = top_source_tokens(model, codec, "m", sentences, 2, search);
  const auto first = translate_and_capture(model, codec, sentences[0].text, search);
  const auto targets = static_cast<int64_t>(first.decoder_tokens.size()) - 1;
  ASSERT_GT(targets, 0);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), targets + 1);  // every target of sentence 1, one of sentence 2
  // Worked out in float64 from the captured cross-attention (block 3): head mean of row t−1, top 2.
  const auto cross = first.attention[3].to(torch::kFloat64);
  for (int64_t t = 1; t <= targets; ++t) {
    const auto& row = rows[t - 1];
    EXPECT_EQ(row.layer, 1);
    EXPECT_EQ(row.target, t);
    EXPECT_EQ(row.target_token, first.decoder_tokens[t]);
    std::vector<std::pair<double, int64_t>> weights;
    for (int64_t j = 0; j < cross.size(2); ++j) {
      double sum = 0.0;
      for (int64_t h = 0; h < cross.size(0); ++h) sum += cross[h][t - 1][j].item<double>();
      weights.push_back({-sum / cross.size(0), j});
    }
    std::sort(weights.begin(), weights.end());
    ASSERT_EQ(row.positions.size(), 2u);
    EXPECT_EQ(row.positions[0], weights[0].second);
    EXPECT_EQ(row.positions[1], weights[1].second);
    EXPECT_EQ(row.tokens[0], first.source_tokens[weights[0].second]);
    EXPECT_NEAR(row.weights[0], -weights[0].first, 1e-6);
  }
  EXPECT_EQ(rows.back().sentence, 2);
  EXPECT_EQ(rows.back().target, 2);
  const auto error = test::error_of([&] { top_source_tokens(model, codec, "m", {{"a dog", 40}}, 2, search); });
  EXPECT_NE(error.find("sentence 1: target 40 is outside 1.."), std::string::npos) << error;
}

}  // namespace
}  // namespace aw
