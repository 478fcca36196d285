// tests/analysis/attention_stats/test_tiled_consumers.cpp — the statistics and the top tokens read the
// attention tile by tile (models/nn/attention.h): under a budget of a few rows they must equal what
// one tile per layer gives — Table 1's sums to float64 rounding (they are added in another order),
// the top tokens exactly — on causal, BET(SF) and translation models.
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/attention_stats/top_tokens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/attention.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::tiny_batches;

constexpr int64_t kOneTile = int64_t{1} << 40;

void expect_same_stats(const AttentionStatsResult& tiled, const AttentionStatsResult& whole) {
  ASSERT_EQ(tiled.heads.size(), whole.heads.size());
  ASSERT_EQ(tiled.layers.size(), whole.layers.size());
  std::vector<DiagonalStats> tiled_rows = tiled.heads, whole_rows = whole.heads;
  tiled_rows.insert(tiled_rows.end(), tiled.layers.begin(), tiled.layers.end());
  whole_rows.insert(whole_rows.end(), whole.layers.begin(), whole.layers.end());
  for (size_t i = 0; i < whole_rows.size(); ++i) {
    const auto &a = tiled_rows[i], &b = whole_rows[i];
    const std::string where = "layer " + std::to_string(b.layer) + " head " + std::to_string(b.head);
    EXPECT_EQ(a.diagonal_entries, b.diagonal_entries) << where;
    EXPECT_EQ(a.lower_entries, b.lower_entries) << where;
    for (const auto& [x, y] : {std::pair{a.ca, b.ca}, {a.ha_mean, b.ha_mean}, {a.ha_std, b.ha_std}, {a.ratio, b.ratio},
                               {a.scaled_ca, b.scaled_ca}, {a.scaled_ha_std, b.scaled_ha_std},
                               {a.uniform_ratio, b.uniform_ratio}, {a.uniform_ha_std, b.uniform_ha_std}})
      EXPECT_NEAR(x, y, 1e-6 * std::max(1.0, std::abs(y))) << where;
  }
}

class TiledStats : public ::testing::TestWithParam<std::string> {};

TEST_P(TiledStats, EqualOneTilePerLayer) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config(GetParam()));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const auto batches = tiny_batches();  // windows of 16 and a padded 7
  AttentionStatsSettings settings;
  settings.forward.memory_budget = kOneTile;
  const auto whole = attention_stats(*loaded.model, "tiny", batches, settings);
  // Three rows of a batch of two 16-token windows, 3 heads: tiles of 3 rows.
  settings.forward.memory_budget = 3 * attention_row_bytes(2, 3, 16, torch::kFloat32);
  const auto tiled = attention_stats(*loaded.model, "tiny", batches, settings);
  expect_same_stats(tiled, whole);
}

INSTANTIATE_TEST_SUITE_P(Models, TiledStats, ::testing::Values("transformer_lm", "bet_sf"));

TEST(TiledStats, TranslationEncoderAndDecoderRowsEqualOneTile) {
  test::TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("mt");
  ModelInput batch;
  torch::manual_seed(2);
  batch.input_ids = torch::randint(3, 20, {2, 12}, torch::kLong);
  batch.attention_mask = torch::ones({2, 12}, torch::kLong);
  batch.attention_mask[1].narrow(0, 9, 3).zero_();
  batch.decoder_input_ids = torch::randint(3, 20, {2, 10}, torch::kLong);
  AttentionStatsSettings settings;
  settings.blocks = {0, 1, 2};  // two encoder blocks and the decoder's self-attention
  settings.forward.memory_budget = kOneTile;
  const auto whole = attention_stats(*loaded.model, "mt", {batch}, settings);
  settings.forward.memory_budget = 2 * attention_row_bytes(2, 2, 12, torch::kFloat32);
  expect_same_stats(attention_stats(*loaded.model, "mt", {batch}, settings), whole);
}

TEST(TiledTopTokens, EqualOneTilePerLayer) {
  TempDir dir;
  test::write_tiny_checkpoint(dir.path(), test::tiny_config("transformer_lm"));
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  const std::vector<TopTokensRequest> sentences = {{"w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12", 9},
                                                   {"w4 w4 w7 w2 w9", -1}};
  ForwardOptions forward;
  forward.memory_budget = kOneTile;
  const auto whole = top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", sentences, 4, forward);
  forward.memory_budget = 2 * attention_row_bytes(1, 3, 11, torch::kFloat32);  // tiles of two rows
  const auto tiled = top_attended_tokens(*loaded.model, *loaded.tokenizer, "m", sentences, 4, forward);
  ASSERT_EQ(tiled.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(tiled[i].positions, whole[i].positions) << i;
    for (size_t k = 0; k < whole[i].weights.size(); ++k) EXPECT_NEAR(tiled[i].weights[k], whole[i].weights[k], 1e-6);
  }
}

}  // namespace
}  // namespace aw
