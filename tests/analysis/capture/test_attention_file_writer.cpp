// tests/analysis/capture/test_attention_file_writer.cpp — attend's binary export (analysis/capture/attention_file_writer.h): each layer
// written as the forward computes it must equal the captured attention exactly (F32) or its F16
// rounding, name its tokens and model, and a file that cannot be written leaves nothing behind. Also
// the streaming safetensors writer's refusals.
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/attention_file_writer.h"
#include "analysis/core/numbered_list.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>

namespace aw {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

Encoding encoding_of(std::vector<int64_t> ids) {
  Encoding encoding;
  encoding.ids = std::move(ids);
  for (auto id : encoding.ids) encoding.tokens.push_back("w" + std::to_string(id));
  return encoding;
}

ModelConfig four_layer_config() {
  nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", 20}, {"n_layers", 4},     {"n_heads", 3},
                         {"d_model", 12},                  {"d_ff", 24},       {"max_positions", 16}, {"dropout", 0.0}};
  return parse_model_config(json, "four-layer config");
}

class ExportFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(ExportFamilies, SafetensorsHoldsEveryLayerAsCaptured) {
  torch::manual_seed(21);
  const auto config = GetParam() == "lama" ? test::tiny_lama_config("lama") : test::tiny_config(GetParam());
  auto model = create_model(config);
  const auto text = encoding_of({3, 7, 1, 12, 5});
  const auto captured = capture_attention(*model, text);
  TempDir dir;
  for (const auto dtype : {torch::kFloat32, torch::kFloat16}) {
    AttentionExportSettings settings;
    settings.path = dir.path() + "/attention.safetensors";
    settings.dtype = dtype;
    int seen = 0;
    export_attention(*model, "tiny", text, settings, [&](int64_t, int64_t, const torch::Tensor&) { ++seen; });
    EXPECT_EQ(seen, config.n_blocks);
    const auto file = SafetensorsFile::open(settings.path);
    ASSERT_EQ(file->names().size(), static_cast<size_t>(2 * config.n_blocks));  // each layer and its thumbnail
    for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
      const auto stored = file->tensor("layer." + std::to_string(layer + 1));
      const auto expected = captured.attention[layer].select(0, 0).to(dtype);
      EXPECT_EQ(stored.scalar_type(), dtype);
      EXPECT_TRUE(torch::equal(stored, expected)) << "layer " << layer + 1;
      // 5 tokens: the thumbnail is the block itself, in F32.
      EXPECT_TRUE(torch::equal(file->tensor("thumbnail." + std::to_string(layer + 1)),
                               captured.attention[layer].select(0, 0)));
    }
    EXPECT_EQ(file->metadata().at("tokens"), R"(["w3","w7","w1","w12","w5"])");
    EXPECT_EQ(file->metadata().at("ids"), "[3,7,1,12,5]");
    EXPECT_EQ(file->metadata().at("model"), "tiny");
    EXPECT_EQ(file->metadata().at("format"), "attention-workbench-attention");
  }
}

INSTANTIATE_TEST_SUITE_P(Families, ExportFamilies, ::testing::Values("transformer_lm", "bet_sf", "lama"));

TEST(AttentionExport, OneLayerAsSafetensorsOrNpy) {
  torch::manual_seed(22);
  auto model = create_model(test::tiny_config("transformer_lm"));
  const auto text = encoding_of({4, 2, 9, 9});
  const auto expected = capture_attention(*model, text).attention[1].select(0, 0);  // (3, 4, 4)
  TempDir dir;
  AttentionExportSettings settings;
  settings.layers = {1};
  settings.path = dir.path() + "/one.safetensors";
  export_attention(*model, "tiny", text, settings);
  const auto file = SafetensorsFile::open(settings.path);
  EXPECT_EQ(file->names(), (std::vector<std::string>{"layer.2", "thumbnail.2"}));
  EXPECT_TRUE(torch::equal(file->tensor("layer.2"), expected));

  settings.path = dir.path() + "/one.npy";
  export_attention(*model, "tiny", text, settings);
  const auto bytes = test::file_bytes(settings.path);
  // numpy's format 1.0: magic, version, header length, a dict padded to 64 bytes, then the data.
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const auto length = static_cast<size_t>(static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + length) % 64, 0u);
  const auto header = bytes.substr(10, length);
  EXPECT_EQ(header.substr(0, header.find('}') + 1), "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 4), }");
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(bytes.size(), 10 + length + 3 * 4 * 4 * sizeof(float));
  const auto values = torch::from_blob(const_cast<char*>(bytes.data()) + 10 + length, {3, 4, 4}, torch::kFloat32);
  EXPECT_TRUE(torch::equal(values, expected));
}

TEST(AttentionExport, ChosenLayersAndHeadsOnly) {
  torch::manual_seed(23);
  auto model = create_model(four_layer_config());
  const auto text = encoding_of({4, 2, 9, 9, 1});
  const auto captured = capture_attention(*model, text);
  TempDir dir;
  AttentionExportSettings settings;
  settings.path = dir.path() + "/some.safetensors";
  settings.layers = parse_numbered_list("4,1-2", 4, "layer");
  settings.heads = parse_numbered_list("3,1", 3, "head");
  EXPECT_EQ(settings.layers, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(settings.heads, (std::vector<int64_t>{0, 2}));
  export_attention(*model, "four", text, settings);
  const auto file = SafetensorsFile::open(settings.path);
  EXPECT_EQ(file->names(), (std::vector<std::string>{"layer.1", "layer.2", "layer.4", "thumbnail.1", "thumbnail.2",
                                                     "thumbnail.4"}));
  EXPECT_EQ(file->metadata().at("heads"), "[1,3]");
  for (int64_t layer : {0, 1, 3}) {
    const auto expected = captured.attention[layer].select(0, 0).index_select(0, torch::tensor({0, 2}));
    EXPECT_TRUE(torch::equal(file->tensor("layer." + std::to_string(layer + 1)), expected)) << layer;
  }
}

TEST(AttentionExport, RefusalsNameTheFileAndLeaveNothing) {
  auto model = create_model(test::tiny_config("transformer_lm"));
  const auto text = encoding_of({1, 2, 3});
  TempDir dir;
  auto refusal = [&](const std::string& path, int64_t layer, std::vector<int64_t> heads = {}) {
    AttentionExportSettings settings;
    settings.path = path;
    if (layer >= 0) settings.layers = {layer};
    settings.heads = std::move(heads);
    return test::error_of([&] { export_attention(*model, "tiny", text, settings); });
  };
  EXPECT_EQ(refusal(dir.path() + "/a.npy", -1), dir.path() + "/a.npy: a .npy file holds one layer: choose it (--layers N)");
  EXPECT_EQ(refusal(dir.path() + "/a.json", -1),
            dir.path() + "/a.json: an attention export is a .safetensors file (every layer) or a .npy file (one layer)");
  EXPECT_EQ(refusal(dir.path() + "/a.safetensors", 2), "layer 3 is out of range: tiny has 2 layers");
  EXPECT_EQ(refusal(dir.path() + "/a.safetensors", 1, {3}), "head 4 is out of range: layer 2 of tiny has 3 heads");
  const auto missing = dir.path() + "/no/such/folder/a.safetensors";
  EXPECT_EQ(refusal(missing, -1), missing + ": cannot write: No such file or directory");
  EXPECT_TRUE(fs::is_empty(dir.path()));  // no half file, no .tmp
}

// A write that fails midway (here the file-size limit, past the header and two layers: in a layer's
// write on the background thread or at the final flush, as stdio buffers) reaches the caller as the
// file's error, and nothing is left behind.
TEST(AttentionExport, AWriteFailingMidwayLeavesNothing) {
  torch::manual_seed(24);
  auto model = create_model(four_layer_config());
  const auto text = encoding_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});  // 3 × 12 × 12 floats: 1,728 bytes a layer
  TempDir dir;
  AttentionExportSettings settings;
  settings.path = dir.path() + "/big.safetensors";
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
  rlimit limited = saved;
  limited.rlim_cur = 4096;  // the header and two layers fit, the third does not
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  const auto error = test::error_of([&] { export_attention(*model, "four", text, settings); });
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(error, settings.path + ": cannot write: File too large");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace aw
