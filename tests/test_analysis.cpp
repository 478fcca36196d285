// tests/test_analysis.cpp — the analyses against independent float64 re-implementations written here
// from the definitions (docs/analyses.md), on tiny random checkpoints with padding.
#include "analysis/attention_stats/top_attended.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/head_gates.h"
#include "analysis/heads/pruning_study.h"
#include "table/csv_format.h"
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/statistics/delta_significance.h"
#include "analysis/attention_stats/diagonal_sweep.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_importance.h"
#include "analysis/heads/head_pruning.h"
#include "analysis/heads/head_removal.h"
#include "analysis/core/token_loss.h"
#include "analysis/attention_stats/top_tokens.h"
#include "models/errors.h"
#include "models/training/evaluation.h"
#include "models/checkpoint/checkpoint.h"
#include "models/runtime.h"
#include "models/text/corpus.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace aw {
namespace {

using test::TempDir;
using test::write_file;

// Windows of 16 and 7 tokens (the second padded), two batches.
std::vector<ModelInput> tiny_batches() {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < 16 * 3 + 7; ++i) ids.push_back(2 + (i * 7) % 17);
  return make_window_batches(ids, 16, 2);
}

struct Reference {
  double diagonal_sum = 0, diagonal_count = 0, lower_sum = 0, lower_square_sum = 0, lower_count = 0;
  // The same with every weight times its row's key count (i + 1 valid keys in a causal window).
  double scaled_diagonal_sum = 0, scaled_lower_sum = 0, scaled_lower_square_sum = 0;
  double ca() const { return diagonal_sum / diagonal_count; }
  double ha_mean() const { return lower_sum / lower_count; }
  double ha_std() const { return std::sqrt(lower_square_sum / lower_count - ha_mean() * ha_mean()); }
  double scaled_ca() const { return scaled_diagonal_sum / diagonal_count; }
  double scaled_ha_mean() const { return scaled_lower_sum / lower_count; }
  double scaled_ha_std() const {
    return std::sqrt(scaled_lower_square_sum / lower_count - scaled_ha_mean() * scaled_ha_mean());
  }
};

// CA/HA by plain loops over every captured matrix, in double precision.
std::vector<std::vector<Reference>> reference_stats(AttentionModel& model, const std::vector<ModelInput>& batches,
                                                    bool include_first_row) {
  const auto& config = model.config();
  std::vector<std::vector<Reference>> per_head(config.n_blocks, std::vector<Reference>(config.max_heads()));
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  for (const auto& batch : batches) {
    const auto result = model.forward(batch, options);
    const auto mask = batch.attention_mask.accessor<int64_t, 2>();
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
      const auto attention = result.attention[layer].to(torch::kFloat64).contiguous();
      const auto a = attention.accessor<double, 4>();
      for (int64_t b = 0; b < attention.size(0); ++b)
        for (int64_t h = 0; h < attention.size(1); ++h)
          for (int64_t i = 0; i < attention.size(2); ++i)
            for (int64_t j = 0; j <= i; ++j) {
              if (!mask[b][i] || !mask[b][j]) continue;
              double keys = 0;
              for (int64_t k = 0; k <= i; ++k) keys += mask[b][k] ? 1 : 0;
              auto& r = per_head[layer][h];
              const double scaled = a[b][h][i][j] * keys;
              if (i == j && (i > 0 || include_first_row)) {
                r.diagonal_sum += a[b][h][i][j];
                r.scaled_diagonal_sum += scaled;
                r.diagonal_count += 1;
              } else if (j < i) {
                r.lower_sum += a[b][h][i][j];
                r.lower_square_sum += a[b][h][i][j] * a[b][h][i][j];
                r.scaled_lower_sum += scaled;
                r.scaled_lower_square_sum += scaled * scaled;
                r.lower_count += 1;
              }
            }
    }
  }
  return per_head;
}

class AttentionStats : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(AttentionStats, MatchTheFloat64Loops) {
  const auto [model_type, include_first_row] = GetParam();
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config(model_type));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  AttentionStatsSettings settings;
  settings.include_first_row = include_first_row;
  const auto result = attention_stats(*loaded.model, "tiny", batches, settings);
  const auto reference = reference_stats(*loaded.model, batches, include_first_row);

  ASSERT_EQ(result.layers.size(), 2u);
  ASSERT_EQ(result.heads.size(), 6u);
  EXPECT_EQ(result.windows, 4);
  for (int64_t layer = 0; layer < 2; ++layer) {
    Reference whole;
    for (int64_t head = 0; head < 3; ++head) {
      const auto& r = reference[layer][head];
      const auto& got = result.heads[layer * 3 + head];
      EXPECT_EQ(got.layer, layer + 1);
      EXPECT_EQ(got.head, head + 1);
      EXPECT_EQ(got.diagonal_entries, static_cast<int64_t>(r.diagonal_count));
      EXPECT_EQ(got.lower_entries, static_cast<int64_t>(r.lower_count));
      EXPECT_NEAR(got.ca, r.ca(), 1e-6);
      EXPECT_NEAR(got.ha_mean, r.ha_mean(), 1e-6);
      EXPECT_NEAR(got.ha_std, r.ha_std(), 1e-6);
      EXPECT_NEAR(got.ratio, r.ca() / r.ha_mean(), 1e-5);
      EXPECT_NEAR(got.scaled_ca, r.scaled_ca(), 1e-6);
      EXPECT_NEAR(got.scaled_ha_mean, r.scaled_ha_mean(), 1e-6);
      EXPECT_NEAR(got.scaled_ha_std, r.scaled_ha_std(), 1e-6);
      whole.scaled_diagonal_sum += r.scaled_diagonal_sum;
      whole.scaled_lower_sum += r.scaled_lower_sum;
      whole.scaled_lower_square_sum += r.scaled_lower_square_sum;
      whole.diagonal_sum += r.diagonal_sum;
      whole.diagonal_count += r.diagonal_count;
      whole.lower_sum += r.lower_sum;
      whole.lower_square_sum += r.lower_square_sum;
      whole.lower_count += r.lower_count;
    }
    const auto& got = result.layers[layer];
    EXPECT_EQ(got.head, 0);
    EXPECT_NEAR(got.ca, whole.ca(), 1e-6);
    EXPECT_NEAR(got.ha_mean, whole.ha_mean(), 1e-6);
    EXPECT_NEAR(got.ha_std, whole.ha_std(), 1e-6);
    EXPECT_NEAR(got.scaled_ha_std, whole.scaled_ha_std(), 1e-6);
  }
  // Hand-counted: 3 full windows of 16 and one of 7 tokens, 3 heads per layer.
  const int64_t rows = 3 * 16 + 7;
  EXPECT_EQ(result.layers[0].diagonal_entries, 3 * (include_first_row ? rows : rows - 4));
  EXPECT_EQ(result.layers[0].lower_entries, 3 * (3 * 16 * 15 / 2 + 7 * 6 / 2));
}

INSTANTIATE_TEST_SUITE_P(Models, AttentionStats,
                         ::testing::Combine(::testing::Values("transformer_lm", "bet_sf"), ::testing::Bool()));

TEST(AttentionStatsByHand, WorkedExampleWithPaddingAndRowZero) {
  // Window 1 (3 tokens):   [1    0    0  ]   Window 2 (2 tokens + 1 padding): [1   0   0]
  //                        [0.25 0.75 0  ]                                    [0.5 0.5 0]
  //                        [0.5  0.25 0.25]                                   [9   9   9]  ← padding row
  // Diagonal: 1, 0.75, 0.25, 1, 0.5 → CA = 3.5/5 = 0.7 with row 0; 1.5/3 = 0.5 without.
  // Lower: 0.25, 0.5, 0.25, 0.5 → HA(μ) = 0.375, HA(σ) = √(mean of 0.125², 0.125², 0.125², 0.125²) = 0.125.
  const auto attention = torch::tensor({1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.5, 0.25, 0.25,  //
                                        1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 9.0, 9.0, 9.0})
                             .view({2, 1, 3, 3});
  const auto valid = torch::tensor({1, 1, 1, 1, 1, 0}, torch::kLong).view({2, 3}).ne(0);
  for (const bool first_row : {true, false}) {
    DiagonalStatsAccumulator sums({1}, first_row, torch::kCPU);
    sums.add(0, attention, valid);
    AttentionStatsResult result;
    sums.finish(result);
    ASSERT_EQ(result.layers.size(), 1u);
    const auto& stats = result.layers.front();
    EXPECT_NEAR(stats.ca, first_row ? 0.7 : 0.5, 1e-12);
    EXPECT_EQ(stats.diagonal_entries, first_row ? 5 : 3);
    EXPECT_NEAR(stats.ha_mean, 0.375, 1e-12);
    EXPECT_NEAR(stats.ha_std, 0.125, 1e-12);
    EXPECT_EQ(stats.lower_entries, 4);
    EXPECT_NEAR(stats.ratio, (first_row ? 0.7 : 0.5) / 0.375, 1e-12);
    EXPECT_EQ(result.heads.front().head, 1);
  }
}

TEST(AttentionStatsFacts, FirstRowAddsExactlyOneOnePerHeadAndWindow) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  AttentionStatsSettings with, without;
  without.include_first_row = false;
  const auto a = attention_stats(*loaded.model, "m", tiny_batches(), with);
  const auto b = attention_stats(*loaded.model, "m", tiny_batches(), without);
  // Row 0 of a causal model attends only to itself: A[0, 0] = 1 in each of 4 windows × 3 heads.
  EXPECT_NEAR(a.layers[0].ca * a.layers[0].diagonal_entries, b.layers[0].ca * b.layers[0].diagonal_entries + 12.0, 1e-9);
  EXPECT_DOUBLE_EQ(a.layers[0].ha_mean, b.layers[0].ha_mean);
}

TEST(AttentionStatsFacts, BetSfDiagonalIsZeroBelowRowZero) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  AttentionStatsSettings settings;
  settings.include_first_row = false;
  const auto result = attention_stats(*loaded.model, "bet", tiny_batches(), settings);
  for (const auto& layer : result.layers) {
    EXPECT_EQ(layer.ca, 0.0);
    EXPECT_EQ(layer.ratio, 0.0);
  }
}

TEST(AttentionStatsFacts, CancelStopsAfterTheBatchAndSaysSo) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto result = attention_stats(*loaded.model, "m", tiny_batches(), {}, [](int64_t, int64_t) { return false; });
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.windows, 2);  // the first batch only
}

TEST(AttentionStatsCsv, HasTheTable1Layout) {
  AttentionStatsResult vanilla;
  vanilla.model = "vanilla";
  DiagonalStats layer;
  layer.layer = 1;
  layer.ca = 0.5;
  layer.ha_mean = 0.25;
  layer.ha_std = 0.125;
  layer.ratio = 2.0;
  vanilla.layers.push_back(layer);
  layer.head = 2;
  vanilla.heads.push_back(layer);
  const std::string uniform_columns =
      "uniform_CA,uniform_HA_mean,uniform_HA_std,uniform_Ratio,Ratio_over_uniform,CA_x_keys,HA_x_keys_mean,"
      "HA_x_keys_std\n";
  EXPECT_EQ(write_csv(attention_stats_table({vanilla}, false)),
            "# include_first_row=true\nmodel,layer,CA,HA_mean,HA_std,Ratio," + uniform_columns +
                "vanilla,1,0.5,0.25,0.125,2,nan,nan,nan,nan,nan,nan,nan,nan\n");
  vanilla.heads.back().uniform_ca = 0.4;
  vanilla.heads.back().uniform_ha_mean = 0.2;
  vanilla.heads.back().uniform_ha_std = 0.1;
  vanilla.heads.back().uniform_ratio = 2.0 / 1.5;
  EXPECT_EQ(write_csv(attention_stats_table({vanilla}, true)),
            "# include_first_row=true\nmodel,layer,head,CA,HA_mean,HA_std,Ratio," + uniform_columns +
                "vanilla,1,2,0.5,0.25,0.125,2,0.4,0.2,0.1,1.33333,1.5,nan,nan,nan\n");
}

// The null baseline against its closed form: a causal row i spreads 1/(i + 1) over i + 1 keys, so
// over rows of windows of n tokens CA = mean of 1/(i + 1), and the i lower entries of row i are each
// 1/(i + 1): HA(μ) = Σ i/(i + 1) / Σ i, HA(σ)² = Σ i/(i + 1)² / Σ i − HA(μ)².
TEST(AttentionStatsFacts, UniformBaselineIsTheClosedFormOverTheSameRows) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  for (const bool first_row : {true, false}) {
    double diagonal = 0, rows = 0, lower = 0, lower_square = 0, entries = 0;
    for (const double n : {16.0, 16.0, 16.0, 7.0})  // tiny_batches: 55 tokens in windows of 16, the last padded
      for (double i = 0; i < n; ++i) {
        if (i > 0 || first_row) diagonal += 1 / (i + 1), rows += 1;
        lower += i / (i + 1);
        lower_square += i / ((i + 1) * (i + 1));
        entries += i;
      }
    const double ca = diagonal / rows, ha_mean = lower / entries;
    const double ha_std = std::sqrt(lower_square / entries - ha_mean * ha_mean);
    AttentionStatsSettings settings;
    settings.include_first_row = first_row;
    const auto result = attention_stats(*loaded.model, "m", tiny_batches(), settings);
    for (const auto* list : {&result.layers, &result.heads})
      for (const auto& row : *list) {
        EXPECT_NEAR(row.uniform_ca, ca, 1e-12);
        EXPECT_NEAR(row.uniform_ha_mean, ha_mean, 1e-12);
        EXPECT_NEAR(row.uniform_ha_std, ha_std, 1e-12);
        EXPECT_NEAR(row.uniform_ratio, ca / ha_mean, 1e-10);
      }
    // Scaled by their rows' key counts, uniform weights are all 1: the variant's reference point.
    DiagonalStatsAccumulator uniform_sums({1}, first_row, torch::kCPU);
    auto valid = torch::ones({1, 5}, torch::kBool);
    valid[0][4] = false;  // one padded position
    const auto uniform = torch::ones({5, 5}, torch::kFloat64).tril() / torch::arange(1, 6, torch::kFloat64).unsqueeze(1);
    uniform_sums.add(0, uniform.masked_fill(valid.logical_not().view({5, 1}) | valid.logical_not().view({1, 5}), 0)
                            .view({1, 1, 5, 5}),
                     valid);
    AttentionStatsResult scaled;
    uniform_sums.finish(scaled);
    EXPECT_NEAR(scaled.layers[0].scaled_ca, 1.0, 1e-12);
    EXPECT_NEAR(scaled.layers[0].scaled_ha_mean, 1.0, 1e-12);
    EXPECT_NEAR(scaled.layers[0].scaled_ha_std, 0.0, 1e-7);
  }
}

TEST(DiagonalSweep, EachPointIsTheModelEvaluatedWithThatIntervention) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const Evaluator evaluate = [&](const ForwardOptions& options, const ProgressCallback& progress) {
    return evaluate_perplexity(*loaded.model, batches, options, progress);
  };
  std::vector<std::pair<int64_t, int64_t>> reports;
  const auto result = diagonal_sweep("tiny", parse_diagonal_factors("1,0.2,mask"), evaluate,
                                     static_cast<int64_t>(batches.size()), {}, [&](int64_t done, int64_t total) {
                                       reports.emplace_back(done, total);
                                       return true;
                                     });
  ASSERT_EQ(result.points.size(), 3u);
  EXPECT_EQ(result.metric_name, "perplexity");
  auto with = [&](DiagonalIntervention intervention) {
    ForwardOptions options;
    options.diagonal = intervention;
    return evaluate_perplexity(*loaded.model, batches, options).metric;
  };
  EXPECT_DOUBLE_EQ(result.points[0].metric, evaluate_perplexity(*loaded.model, batches).metric);
  EXPECT_DOUBLE_EQ(result.points[1].metric, with(DiagonalIntervention::scale(0.2)));
  EXPECT_DOUBLE_EQ(result.points[2].metric, with(DiagonalIntervention::mask()));
  EXPECT_NE(result.points[1].metric, result.points[0].metric);  // the intervention reaches the model
  EXPECT_NE(result.points[2].metric, result.points[0].metric);
  EXPECT_DOUBLE_EQ(result.baseline, result.points[0].metric);  // factor 1 of a normally trained model
  EXPECT_DOUBLE_EQ(result.points[1].delta, result.points[1].metric - result.baseline);
  ASSERT_EQ(reports.size(), 8u);  // 2 batches × (the baseline + 3 points), counted across them
  EXPECT_EQ(reports.back().first, 8);
  EXPECT_EQ(reports.back().second, 8);
  EXPECT_EQ(write_csv(diagonal_sweep_table(result)).rfind("# model=tiny, metric=perplexity, baseline=", 0), 0u);
  EXPECT_NE(write_csv(diagonal_sweep_table(result)).find("\nfactor,metric,delta\n1,"), std::string::npos);
}

// With a bootstrap, each point's interval and p-value are delta_significance over the per-window
// losses of the baseline and of that point, each window evaluated on its own here.
TEST(DiagonalSweep, BootstrapIsThePairedBootstrapOfEachWindowsLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const auto data = language_model_data(batches);
  SignificanceOptions options;
  options.resamples = 400;
  options.seed = 5;
  const auto result = diagonal_sweep("tiny", parse_diagonal_factors("0,mask"), data_evaluator(*loaded.model, data, true),
                                     static_cast<int64_t>(batches.size()), {}, {}, options);
  ASSERT_EQ(result.points.size(), 2u);
  // Per window: its summed token loss and its predicted tokens, from a forward of that window alone.
  std::vector<DiagonalIntervention> settings{DiagonalIntervention{}, DiagonalIntervention::scale(0.0),
                                             DiagonalIntervention::mask()};
  std::vector<ModelInput> windows;
  for (const auto& batch : batches)
    for (int64_t row = 0; row < batch.input_ids.size(0); ++row)
      windows.push_back(batch.map([&](const torch::Tensor& t) { return t.narrow(0, row, 1); }));
  auto sums = torch::zeros({static_cast<int64_t>(windows.size()), 3}, torch::kFloat64);
  auto counts = torch::zeros({static_cast<int64_t>(windows.size())}, torch::kFloat64);
  for (size_t w = 0; w < windows.size(); ++w)
    for (size_t s = 0; s < settings.size(); ++s) {
      ForwardOptions forward;
      forward.diagonal = settings[s];
      const auto alone = evaluate_perplexity(*loaded.model, {windows[w]}, forward);
      sums[w][s] = alone.loss * static_cast<double>(alone.count);
      counts[w] = static_cast<double>(alone.count);
    }
  const auto expected = delta_significance({"perplexity", sums, counts}, 0, {1, 2}, options);
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_NEAR(result.points[p].significance.low, expected[p].low, 1e-3 * std::abs(expected[p].low) + 1e-6);
    EXPECT_NEAR(result.points[p].significance.high, expected[p].high, 1e-3 * std::abs(expected[p].high) + 1e-6);
    EXPECT_DOUBLE_EQ(result.points[p].significance.p_value, expected[p].p_value);
    EXPECT_DOUBLE_EQ(result.points[p].significance.p_adjusted, expected[p].p_adjusted);
  }
  EXPECT_NE(write_csv(diagonal_sweep_table(result)).find(", bootstrap=400, seed=5, correction=holm\nfactor,metric,delta,delta_low,"),
            std::string::npos);
}

TEST(DiagonalSweep, FactorListsAreChecked) {
  EXPECT_EQ(parse_diagonal_factors(default_diagonal_factors()).size(), 11u);
  EXPECT_EQ(parse_diagonal_factors("mask").front().intervention.kind, DiagonalIntervention::Kind::Mask);
  for (const std::string bad : {"", "0,,1", "-1", "x", "1e999"}) {
    try {
      parse_diagonal_factors(bad);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("--factors"), std::string::npos) << error.what();
    }
  }
}

TEST(TopTokens, AreTheLargestHeadMeanWeightsOfTheRowBeforeTheTarget) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const std::string text = "w2 w3 w4 w5 w6 w7 w8";
  const auto rows = top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", {{text, 5}}, 3);
  ASSERT_EQ(rows.size(), 2u);  // one per layer

  ForwardOptions options;
  options.capture = CaptureMode::Full;
  ModelInput input;
  input.input_ids = torch::tensor(loaded.tokenizer->encode(text).ids, torch::kLong).unsqueeze(0);
  torch::NoGradGuard no_grad;
  const auto attention = loaded.model->forward(input, options).attention;
  for (int64_t layer = 0; layer < 2; ++layer) {
    // Head mean of row 4 (the token before target 5) by hand, then the three largest.
    const auto values = attention[layer].to(torch::kFloat64);
    const auto a = values.accessor<double, 4>();
    std::vector<std::pair<double, int64_t>> weights;
    for (int64_t j = 0; j < 7; ++j) weights.emplace_back(-(a[0][0][4][j] + a[0][1][4][j] + a[0][2][4][j]) / 3, j);
    std::sort(weights.begin(), weights.end());
    const auto& row = rows[layer];
    EXPECT_EQ(row.layer, layer + 1);
    EXPECT_EQ(row.target, 5);
    EXPECT_EQ(row.target_token, "w7");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(row.positions[i], weights[i].second);
      EXPECT_EQ(row.tokens[i], "w" + std::to_string(2 + weights[i].second));
      EXPECT_NEAR(row.weights[i], -weights[i].first, 1e-6);
    }
    EXPECT_LE(row.positions[0], 4);  // causal: nothing after the query row
  }
  EXPECT_EQ(write_csv(top_tokens_table(rows, 3)).substr(0, 45), "layer,sentence,target,method,top1,top2,top3\n1");
}

TEST(TopTokens, TiesGoToTheLowerPosition) {
  const auto top = top_attended(torch::tensor({0.2, 0.3, 0.3, 0.2}), 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].position, 1);
  EXPECT_EQ(top[1].position, 2);
  EXPECT_EQ(top[2].position, 0);
  EXPECT_NEAR(top[2].weight, 0.2, 1e-7);
}

TEST(TopTokens, BadRequestsAreNamed) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  auto message = [&](const std::vector<TopTokensRequest>& requests) {
    try {
      top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", requests, 3);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"w2", -1}}), "sentence 1 gives 1 token(s); a target needs at least 2");
  EXPECT_EQ(message({{"w2 w3", -1}, {"w2 w3 w4", 3}}),
            "sentence 2: target 3 is outside 1..2 (0-based position of the predicted token)");
  EXPECT_EQ(message({{"w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18", -1}}),
            "sentence 1 has 17 tokens but m allows 16");
  write_file(dir.file("s.txt"), "w2 w3\n\nw4 w5\tx\n");
  try {
    read_top_token_requests(dir.file("s.txt"));
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("s.txt") + ":3: target 'x' is not a token position ≥ 1");
  }
  // Found by fuzz/fuzz_sentence_file.cpp: a TAB with nothing before it made a request of no text.
  const auto file_error = [&](const std::string& text) {
    write_file(dir.file("s.txt"), text);
    return test::error_of([&] { read_top_token_requests(dir.file("s.txt")); });
  };
  EXPECT_EQ(file_error("w2 w3\n \t1\n"), dir.file("s.txt") + ":2: no sentence before the TAB");
  EXPECT_EQ(file_error("w2 w3\t99999999999999999999\n"),
            dir.file("s.txt") + ":1: target '99999999999999999999' is not a token position ≥ 1");
}

// The metric under one [L, H] gate setting by a plain full forward (no batching, no reuse).
double metric_with_gates(AttentionModel& model, const std::vector<ModelInput>& batches, const torch::Tensor& gates) {
  ForwardOptions options;
  options.head_gates = gates;
  return evaluate_perplexity(model, batches, options).metric;
}

class HeadAblation : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadAblation, SingleAndAllButOneMatchPlainGatedForwards) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config(GetParam()));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const auto data = language_model_data(batches);
  // A base setting with one head already off (as the GUI's gate state would be).
  auto base = all_heads_on(loaded.config);
  base[1][2] = 0.0;

  const auto single = ablate_heads(*loaded.model, "m", data, AblationMode::Single, base);
  EXPECT_NEAR(single.baseline, metric_with_gates(*loaded.model, batches, base), 1e-4 * single.baseline);
  ASSERT_EQ(single.heads.size(), 6u);
  for (const auto& effect : single.heads) {
    auto gates = base.clone();
    gates[effect.layer - 1][effect.head - 1] = 0.0;
    const double expected = metric_with_gates(*loaded.model, batches, gates);
    EXPECT_NEAR(effect.metric, expected, 1e-4 * expected) << effect.layer << "," << effect.head;
    EXPECT_NEAR(effect.delta, effect.metric - single.baseline, 1e-9);
  }
  EXPECT_NEAR(single.heads[5].delta, 0.0, 1e-4 * single.baseline);  // layer 2 head 3 was already off

  const auto alone = ablate_heads(*loaded.model, "m", data, AblationMode::AllButOne, base);
  ASSERT_EQ(alone.best_per_layer.size(), 2u);
  for (int64_t layer = 0; layer < 2; ++layer) {
    double best = 1e300;
    int64_t best_head = -1;
    for (int64_t head = 0; head < 3; ++head) {
      auto gates = base.clone();
      gates[layer].zero_();
      gates[layer][head] = base[layer][head];
      const double expected = metric_with_gates(*loaded.model, batches, gates);
      EXPECT_NEAR(alone.heads[layer * 3 + head].metric, expected, 1e-4 * expected);
      if (expected < best) best = expected, best_head = head + 1;
    }
    EXPECT_EQ(alone.best_per_layer[layer].head, best_head);
    EXPECT_EQ(alone.best_per_layer[layer].layer, layer + 1);
  }
  const auto csv = write_csv(ablation_table(alone));
  EXPECT_NE(csv.find("\nlayer,best_head,metric,delta\n1,"), std::string::npos) << csv;
}

INSTANTIATE_TEST_SUITE_P(Models, HeadAblation, ::testing::Values("transformer_lm", "bet_sf"));

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

// On the CPU the chunks of settings run on one worker per OpenBLAS thread, each with a single-threaded
// BLAS: the numbers are bit for bit those of one worker, and OpenBLAS gets its threads back.
TEST(GateEvaluation, SettingsOnSeveralWorkersGiveTheNumbersOfOne) {
  if (blas_threads() < 0) GTEST_SKIP() << "the BLAS is not OpenBLAS: one worker only";
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto data = language_model_data(tiny_batches());
  auto settings = all_heads_on(loaded.config).unsqueeze(0).repeat({7, 1, 1});
  for (int64_t s = 1; s < 7; ++s) settings[s][s % 2][(s - 1) % 3] = 0.0;
  const int before = blas_threads();
  ASSERT_TRUE(set_blas_threads(3));
  const auto three_workers = evaluate_gate_settings(*loaded.model, data, settings, 0, {}, 1);
  EXPECT_EQ(blas_threads(), 3);
  ASSERT_TRUE(set_blas_threads(1));
  const auto one_worker = evaluate_gate_settings(*loaded.model, data, settings, 0, {}, 1);
  set_blas_threads(before);
  ASSERT_EQ(three_workers.size(), 7u);
  for (size_t s = 0; s < 7; ++s) {
    EXPECT_EQ(three_workers[s].loss, one_worker[s].loss) << "setting " << s;
    EXPECT_EQ(three_workers[s].metric, one_worker[s].metric) << "setting " << s;
  }
}

// The last hidden states of a batch: (B, n, d).
torch::Tensor last_hidden(AttentionModel& model, const ModelInput& batch) {
  return model.run_layers(model.embed(batch), batch, 0, model.config().n_blocks, {}).hidden;
}

TEST(TokenLoss, ChunkedLossesEqualCrossEntropyOfTheWholeOutput) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  c10::InferenceMode inference;
  const auto batch = tiny_batches().front();
  const auto hidden = last_hidden(*loaded.model, batch);
  const auto logits = loaded.model->output(hidden, batch);                                   // (2, 16, V)
  const auto expected = torch::nn::functional::cross_entropy(
      logits.narrow(1, 0, 15).reshape({-1, logits.size(-1)}), batch.input_ids.narrow(1, 1, 15).reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone)).view({2, 15});
  for (const int64_t chunk : {1, 7, 30, 0}) {  // 30 positions predict: uneven, exact and automatic chunks
    const auto losses = next_token_losses(*loaded.model, hidden, batch, chunk);
    EXPECT_TRUE(torch::allclose(losses, expected, 1e-5, 1e-6)) << chunk << ": " << test::max_difference(losses, expected);
  }
}

TEST(TokenLoss, ChunkedGradientEqualsAutogradOfTheWeightedLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);
  const auto batch = tiny_batches().front();
  const auto hidden = last_hidden(*loaded.model, batch).detach().requires_grad_(true);
  torch::manual_seed(3);
  const auto weights = torch::rand({2, 15}, torch::kFloat64);
  const auto logits = loaded.model->output(hidden, batch).narrow(1, 0, 15);
  const auto log_probabilities = torch::log_softmax(logits, -1).gather(-1, batch.input_ids.narrow(1, 1, 15).unsqueeze(-1));
  const auto expected_loss = -(log_probabilities.squeeze(-1) * weights).sum();
  const auto expected_gradient = torch::autograd::grad({expected_loss}, {hidden}).front();
  for (const int64_t chunk : {4, 0}) {
    const auto result = next_token_loss_and_gradient(*loaded.model, hidden, weights, batch, chunk);
    EXPECT_NEAR(result.loss.item<double>(), expected_loss.item<double>(), 1e-10) << chunk;
    EXPECT_TRUE(torch::allclose(result.hidden_gradient, expected_gradient, 1e-9, 1e-12))
        << chunk << ": " << test::max_difference(result.hidden_gradient, expected_gradient);
  }
}

TEST(HeadImportance, EqualsFiniteDifferencesOfTheLossInTheGates) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);  // so central differences are exact to ~1e-9
  const auto batches = tiny_batches();
  const auto raw = head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false);
  ASSERT_EQ(raw.batches, 2);
  auto loss_at = [&](const ModelInput& batch, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    // Mean next-token cross-entropy over non-padding targets, in float64 throughout.
    const auto logits = loaded.model->forward(batch, options).logits;
    const int64_t n = logits.size(1);
    const auto log_probabilities = torch::log_softmax(logits.narrow(1, 0, n - 1), -1);
    const auto targets = batch.input_ids.narrow(1, 1, n - 1).unsqueeze(-1);
    const auto keep = batch.attention_mask.narrow(1, 1, n - 1).to(torch::kFloat64);
    return (-(log_probabilities.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  for (int64_t layer = 0; layer < 2; ++layer)
    for (int64_t head = 0; head < 3; ++head) {
      double expected = 0.0;
      for (const auto& batch : batches) {
        auto plus = torch::ones({2, 3}, torch::kFloat64), minus = torch::ones({2, 3}, torch::kFloat64);
        plus[layer][head] += step;
        minus[layer][head] -= step;
        expected += std::abs((loss_at(batch, plus) - loss_at(batch, minus)) / (2 * step)) / 2.0;
      }
      EXPECT_NEAR(raw.scores[layer][head], expected, 1e-6 + 1e-5 * expected) << layer << "," << head;
    }
  const auto normalized = head_importance(*loaded.model, "m", language_model_data(batches));
  for (int64_t layer = 0; layer < 2; ++layer) {
    double norm = 0.0;
    for (double v : raw.scores[layer]) norm += v * v;
    for (int64_t head = 0; head < 3; ++head)
      EXPECT_NEAR(normalized.scores[layer][head], raw.scores[layer][head] / std::sqrt(norm), 1e-9);
  }
  EXPECT_EQ(write_csv(importance_table(normalized)).substr(0, 49), "# model=m, normalized=true\nlayer,head,importance\n");
}

TEST(HeadImportance, PerExampleEqualsFiniteDifferencesOfEachWindowsOwnLoss) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("bet_sf"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  loaded.model->module().to(torch::kFloat64);
  const auto batches = tiny_batches();  // 4 windows in 2 batches, the last window padded
  const auto per_example =
      head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false, {}, {}, /*per_example=*/true);
  const auto per_batch = head_importance(*loaded.model, "m", language_model_data(batches), /*normalize=*/false);
  EXPECT_EQ(per_example.examples, 4);
  // One window's own mean next-token loss, in float64.
  auto loss_at = [&](const ModelInput& window, const torch::Tensor& gates) {
    ForwardOptions options;
    options.head_gates = gates;
    torch::NoGradGuard no_grad;
    const auto logits = loaded.model->forward(window, options).logits;
    const int64_t n = logits.size(1);
    const auto log_probabilities = torch::log_softmax(logits.narrow(1, 0, n - 1), -1);
    const auto targets = window.input_ids.narrow(1, 1, n - 1).unsqueeze(-1);
    const auto keep = window.attention_mask.defined() ? window.attention_mask.narrow(1, 1, n - 1).to(torch::kFloat64)
                                                      : torch::ones({1, n - 1}, torch::kFloat64);
    return (-(log_probabilities.gather(-1, targets).squeeze(-1) * keep).sum() / keep.sum()).item<double>();
  };
  const double step = 1e-5;
  for (int64_t layer = 0; layer < 2; ++layer)
    for (int64_t head = 0; head < 3; ++head) {
      double expected = 0.0;
      for (const auto& batch : batches)
        for (int64_t row = 0; row < batch.input_ids.size(0); ++row) {
          const auto window = batch.map([&](const torch::Tensor& t) { return t.narrow(0, row, 1); });
          auto plus = torch::ones({2, 3}, torch::kFloat64), minus = torch::ones({2, 3}, torch::kFloat64);
          plus[layer][head] += step;
          minus[layer][head] -= step;
          expected += std::abs((loss_at(window, plus) - loss_at(window, minus)) / (2 * step)) / 4.0;
        }
      EXPECT_NEAR(per_example.scores[layer][head], expected, 1e-6 + 1e-5 * expected) << layer << "," << head;
    }
  EXPECT_NE(per_example.scores[0][0], per_batch.scores[0][0]);
  EXPECT_EQ(write_csv(importance_table(per_example)).substr(0, 46), "# model=m, normalized=false, per_example=true\n");
}

TEST(HeadImportance, LeavesTheParametersAsTheyWere) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  auto parameters = loaded.model->module().parameters();
  parameters.front().requires_grad_(false);  // one frozen by the caller stays frozen
  head_importance(*loaded.model, "m", language_model_data(tiny_batches()));
  EXPECT_FALSE(parameters.front().requires_grad());
  for (size_t i = 1; i < parameters.size(); ++i) {
    EXPECT_TRUE(parameters[i].requires_grad()) << i;
    EXPECT_FALSE(parameters[i].grad().defined()) << i;
  }
}

TEST(HeadPruning, OrderIsAscendingWithTiesByPosition) {
  const auto order = order_heads({{0.5, 0.1, 0.3}, {0.1, 0.9}});
  ASSERT_EQ(order.size(), 5u);
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, 1}, {1, 0}, {0, 2}, {0, 0}, {1, 1}};
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i].layer, expected[i].first) << i;
    EXPECT_EQ(order[i].head, expected[i].second) << i;
  }
}

TEST(HeadPruning, CurvePointsAreTheModelWithThoseHeadsGatedOff) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();
  const std::vector<HeadRef> order = {{1, 2}, {0, 0}, {1, 0}, {0, 2}, {0, 1}, {1, 1}};
  const auto points = pruning_curve(*loaded.model, language_model_data(batches), "importance", order, 10.0);
  ASSERT_EQ(points.size(), 11u);
  // round(p/100 · 6) for p = 0, 10, …, 100, worked by hand.
  const std::vector<int64_t> pruned = {0, 1, 1, 2, 2, 3, 4, 4, 5, 5, 6};
  for (size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].heads_pruned, pruned[i]) << points[i].percent;
    auto gates = all_heads_on(loaded.config);
    for (int64_t k = 0; k < pruned[i]; ++k) gates[order[k].layer][order[k].head] = 0.0;
    const double expected = metric_with_gates(*loaded.model, batches, gates);
    EXPECT_NEAR(points[i].metric, expected, 1e-4 * expected) << points[i].percent;
  }
  EXPECT_THROW(pruning_curve(*loaded.model, language_model_data(batches), "x", order, 0.0), Error);
}

class HeadRemoval : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadRemoval, PrunedModelComputesWhatTheGatedModelComputes) {
  TempDir dir;
  const auto config = test::tiny_config(GetParam());
  test::write_tiny_checkpoint(dir.path(), config);
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  // Layer 1 loses its middle head; layer 2 loses two of three.
  const std::vector<HeadRef> removed = {{0, 1}, {1, 0}, {1, 2}};
  const auto pruned = remove_heads(*loaded.model, removed);
  EXPECT_EQ(pruned->config().heads_per_block, (std::vector<int64_t>{2, 1}));

  auto gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gates[head.layer][head.head] = 0.0;
  const auto batch = tiny_batches().back();  // padded
  ForwardOptions gated;
  gated.head_gates = gates;
  gated.capture = CaptureMode::Full;
  ForwardOptions plain;
  plain.capture = CaptureMode::Full;
  torch::NoGradGuard no_grad;
  const auto expected = loaded.model->forward(batch, gated);
  const auto got = pruned->forward(batch, plain);
  EXPECT_TRUE(torch::allclose(got.logits, expected.logits, 1e-5, 1e-5)) << test::max_difference(got.logits, expected.logits);
  ASSERT_EQ(got.attention[1].size(1), 1);
  // The remaining heads attend exactly as before (layer 1: heads 1 and 3; layer 2: head 2).
  EXPECT_TRUE(torch::allclose(got.attention[0].select(1, 1), expected.attention[0].select(1, 2), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(got.attention[1].select(1, 0), expected.attention[1].select(1, 1), 1e-5, 1e-6));

  // Saved and loaded again: same numbers, fewer parameters, heads_per_block in config.json.
  TempDir saved;
  save_native_checkpoint(saved.path(), *pruned, test::tiny_vocabulary(config.vocab_size));
  auto reloaded = load_checkpoint(saved.path(), torch::kCPU);
  EXPECT_EQ(reloaded.config.heads_per_block, (std::vector<int64_t>{2, 1}));
  EXPECT_LT(reloaded.parameter_count, loaded.parameter_count);
  EXPECT_TRUE(torch::allclose(reloaded.model->forward(batch).logits, expected.logits, 1e-5, 1e-5));

  EXPECT_THROW(remove_heads(*loaded.model, {{0, 1}, {0, 1}}), Error);
  EXPECT_THROW(remove_heads(*loaded.model, {{2, 0}}), Error);
}

INSTANTIATE_TEST_SUITE_P(Models, HeadRemoval, ::testing::Values("transformer_lm", "bet_sf"));

}  // namespace
}  // namespace aw
