// tests/analysis/capture/test_attention_export_tiles.cpp — attend's export at any length
// (analysis/capture/attention_file_writer.h): written tile by tile it equals the whole capture; a
// region (--rows/--cols) is the slice of it and a pooled file (--pool K, mean or max) its blocks,
// and the reader labels both; a region outside the text or a pool larger than it is refused.
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_file_reader.h"
#include "analysis/capture/attention_file_writer.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/memory_budget.h"
#include "models/nn/attention.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::TempDir;

// The process's tile budget for one test, set back to the machine's default after it.
struct BudgetForTest {
  explicit BudgetForTest(int64_t bytes) { set_attention_memory_budget(bytes); }
  ~BudgetForTest() { set_attention_memory_budget(0); }
};

Encoding thirteen_tokens() {
  Encoding encoding;
  for (int64_t i = 0; i < 13; ++i) {
    encoding.ids.push_back(2 + (i * 5) % 17);
    encoding.tokens.push_back("t" + std::to_string(i));
  }
  return encoding;
}

struct Exported {
  std::shared_ptr<AttentionModel> model = [] {
    torch::manual_seed(31);
    return create_model(test::tiny_config("transformer_lm"));
  }();
  Encoding text = thirteen_tokens();
  std::vector<torch::Tensor> whole = [this] {
    std::vector<torch::Tensor> layers;
    for (const auto& layer : capture_attention(*model, text).attention) layers.push_back(layer.select(0, 0));
    return layers;  // per layer (3, 13, 13)
  }();
  TempDir dir;

  std::string write(AttentionExportSettings settings, const std::string& name = "a.safetensors") {
    settings.path = dir.file(name);
    BudgetForTest budget(2 * attention_row_bytes(1, 3, 13, torch::kFloat32));  // tiles of two rows
    export_attention(*model, "tiny", text, settings);
    return settings.path;
  }
};

TEST(AttentionExportTiles, TileByTileEqualsTheWholeCaptureInSafetensorsAndNpy) {
  Exported exported;
  const auto file = SafetensorsFile::open(exported.write({}));
  for (int64_t layer = 0; layer < 2; ++layer) {
    const auto stored = file->tensor("layer." + std::to_string(layer + 1));
    EXPECT_TRUE(torch::allclose(stored, exported.whole[layer], 0, 1e-6)) << layer;
    EXPECT_TRUE(torch::allclose(file->tensor("thumbnail." + std::to_string(layer + 1)), exported.whole[layer], 0, 1e-6));
  }
  EXPECT_EQ(file->metadata().count("rows"), 0u);  // the whole map: no region named
  AttentionExportSettings one;
  one.layers = {1};
  const auto bytes = test::file_bytes(exported.write(one, "one.npy"));
  const size_t start = 10 + (static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
  ASSERT_EQ(bytes.size(), start + 3 * 13 * 13 * sizeof(float));
  const auto values = torch::from_blob(const_cast<char*>(bytes.data()) + start, {3, 13, 13}, torch::kFloat32);
  EXPECT_TRUE(torch::allclose(values, exported.whole[1], 0, 1e-6));
}

TEST(AttentionExportTiles, ARegionIsTheSliceOfTheWholeAndTheReaderLabelsIt) {
  Exported exported;
  AttentionExportSettings settings;
  settings.row_begin = 2, settings.row_end = 9;   // --rows 3-9
  settings.col_begin = 1, settings.col_end = 5;   // --cols 2-5
  settings.heads = {0, 2};
  const auto path = exported.write(settings);
  const auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->metadata().at("rows"), "3-9");
  EXPECT_EQ(file->metadata().at("cols"), "2-5");
  for (int64_t layer = 0; layer < 2; ++layer) {
    const auto expected = exported.whole[layer].index_select(0, torch::tensor({0, 2})).narrow(1, 2, 7).narrow(2, 1, 4);
    EXPECT_TRUE(torch::allclose(file->tensor("layer." + std::to_string(layer + 1)), expected, 0, 1e-6)) << layer;
  }
  const auto contents = read_attention_file(path);
  EXPECT_EQ(contents.row_labels, (std::vector<std::string>{"t2", "t3", "t4", "t5", "t6", "t7", "t8"}));
  EXPECT_EQ(contents.col_labels, (std::vector<std::string>{"t1", "t2", "t3", "t4"}));
  EXPECT_EQ(contents.layers[0].sizes(), (std::vector<int64_t>{2, 7, 4}));
}

TEST(AttentionExportTiles, APooledFileHoldsBlockMeansOrMaximaAndBlockLabels) {
  Exported exported;
  for (const auto kind : {PoolKind::Mean, PoolKind::Max}) {
    AttentionExportSettings settings;
    settings.pool = 5;  // blocks of 5, 5 and 3 tokens
    settings.pool_kind = kind;
    const auto path = exported.write(settings);
    const auto file = SafetensorsFile::open(path);
    EXPECT_EQ(file->metadata().at("pool"), kind == PoolKind::Max ? "5 max" : "5 mean");
    for (int64_t layer = 0; layer < 2; ++layer) {
      const auto stored = file->tensor("layer." + std::to_string(layer + 1));
      ASSERT_EQ(stored.sizes(), (std::vector<int64_t>{3, 3, 3}));
      const auto& map = exported.whole[layer];
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const auto block = map.narrow(1, i * 5, std::min<int64_t>(5, 13 - i * 5)).narrow(2, j * 5, std::min<int64_t>(5, 13 - j * 5));
          const auto expected = kind == PoolKind::Max ? block.amax({1, 2}) : block.to(torch::kFloat64).mean({1, 2}).to(torch::kFloat32);
          EXPECT_TRUE(torch::allclose(stored.select(1, i).select(1, j), expected, 0, 1e-6)) << i << " " << j;
        }
    }
    EXPECT_EQ(read_attention_file(path).row_labels, (std::vector<std::string>{"1–5", "6–10", "11–13"}));
  }
}

TEST(AttentionExportTiles, RegionsOutsideTheTextAndOversizedPoolsAreRefused) {
  Exported exported;
  AttentionExportSettings settings;
  settings.row_begin = 4, settings.row_end = 20;
  EXPECT_EQ(error_of([&] { exported.write(settings); }), "--rows 5-20 is outside the text's 13 tokens (1-13)");
  settings = {};
  settings.col_begin = 13;
  EXPECT_EQ(error_of([&] { exported.write(settings); }), "--cols 14-13 is outside the text's 13 tokens (1-13)");
  settings = {};
  settings.pool = 14;
  EXPECT_EQ(error_of([&] { exported.write(settings); }), "--pool 14 must be between 1 and the 13 tokens pooled");
  EXPECT_FALSE(std::filesystem::exists(exported.dir.file("a.safetensors")));
}

}  // namespace
}  // namespace aw
