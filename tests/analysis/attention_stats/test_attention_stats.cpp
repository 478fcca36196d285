// tests/analysis/attention_stats/test_attention_stats.cpp — CA/HA statistics against float64 loops over the
// captured attention, by hand, shared between two ranks and per translation kind (analysis/attention_stats/attention_stats)
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/core/registry.h"
#include "models/checkpoint/checkpoint.h"
#include "table/csv_format.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"
#include "tests/support/two_rank_stand_in.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::pairs_path;
using test::SharedBatches;
using test::TempDir;
using test::three_runs;
using test::tiny_batches;
using test::TinyTranslation;

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

}  // namespace
}  // namespace aw
