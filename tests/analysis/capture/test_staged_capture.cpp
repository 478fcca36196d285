// tests/analysis/capture/test_staged_capture.cpp — a re-run under new gates that starts at the lowest changed layer
// (analysis/capture/staged_capture.h) must give exactly what a full forward under those gates gives, run only
// the layers it says, and start over for another text.
#include "analysis/capture/attention_capture.h"
#include "analysis/capture/staged_capture.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

ModelConfig four_layer_config(const std::string& model_type) {
  nlohmann::json json = {{"model_type", model_type}, {"vocab_size", 20}, {"n_layers", 4},     {"n_heads", 3},
                         {"d_model", 12},            {"d_ff", 24},       {"max_positions", 16}, {"dropout", 0.0}};
  if (model_type == "encoder_classifier") json["labels"] = {"neg", "pos"};
  return parse_model_config(json, "four-layer config");
}

ModelConfig config_of(const std::string& family) {
  if (family == "lama" || family == "bigru_mean") return test::tiny_lama_config(family);
  // The Hugging Face families: a fixture folder's config (sliding and global layers, norms around
  // each sublayer, fused weights), with fresh random weights.
  const std::string folder = AW_SOURCE_DIR "/tests/fixtures/hf_models/" + family;
  if (std::filesystem::exists(folder + "/config.json")) return read_model_config(folder);
  return four_layer_config(family);
}

Encoding encoding_of(std::vector<int64_t> ids) {
  Encoding encoding;
  encoding.ids = std::move(ids);
  for (auto id : encoding.ids) encoding.tokens.push_back("t" + std::to_string(id));
  return encoding;
}

// Gates [L, H_max] with the given (layer, head) pairs off.
torch::Tensor gates_off(const ModelConfig& config, const std::vector<std::pair<int, int>>& off) {
  std::vector<std::vector<bool>> flags;
  for (auto heads : config.heads_per_block) flags.emplace_back(static_cast<size_t>(heads), true);
  for (const auto& [layer, head] : off) flags[layer][head] = false;
  return gates_from_flags(config, flags);
}

void expect_equals_full_forward(AttentionModel& model, const Encoding& encoding, const torch::Tensor& gates,
                                const StagedRun& staged, const std::vector<torch::Tensor>& kept_below) {
  ForwardOptions options;
  options.head_gates = gates;
  const auto full = capture_attention(model, encoding, options);
  for (size_t layer = 0; layer < full.attention.size(); ++layer) {
    const auto& attention = static_cast<int64_t>(layer) < staged.first_layer_run ? kept_below[layer] : staged.attention[layer];
    ASSERT_TRUE(attention.defined()) << "layer " << layer;
    EXPECT_TRUE(torch::equal(attention, full.attention[layer])) << "layer " << layer;
  }
  EXPECT_TRUE(torch::equal(staged.final_hidden, full.hidden));
  // Any layer made again from the state entering it (the GUI keeps only the layer it shows).
  ASSERT_EQ(staged.replay.layers(), static_cast<int64_t>(full.attention.size()));
  for (size_t layer = 0; layer < full.attention.size(); ++layer)
    EXPECT_TRUE(torch::equal(staged.replay.attention(static_cast<int64_t>(layer)), full.attention[layer]))
        << "replayed layer " << layer;
  c10::InferenceMode inference;
  EXPECT_TRUE(torch::equal(model.output(staged.final_hidden, encoding_input(encoding)), full.logits));
}

// `states_in_memory_up_to` as StagedCapture takes it: 0 keeps every state in a temporary file.
void expect_re_runs_equal_full_forwards(const std::string& family, int64_t states_in_memory_up_to) {
  torch::manual_seed(11);
  const auto config = config_of(family);
  auto model = create_model(config);
  const auto text = encoding_of({3, 7, 1, 12, 5, 9, 2});
  StagedCapture staged(*model, states_in_memory_up_to);

  auto first = staged.run(text, {});
  EXPECT_EQ(staged.states_in_file(), states_in_memory_up_to == 0 && config.n_blocks > 0);
  EXPECT_EQ(first.first_layer_run, 0);
  expect_equals_full_forward(*model, text, {}, first, {});
  auto kept = first.attention;
  if (config.n_blocks == 0) return;  // nothing to gate

  // A head off in the last layer: only that layer runs again.
  const int last = static_cast<int>(config.n_blocks) - 1;
  const auto last_off = gates_off(config, {{last, 1}});
  const auto second = staged.run(text, last_off);
  EXPECT_EQ(second.first_layer_run, last);
  for (int layer = 0; layer < last; ++layer) EXPECT_FALSE(second.attention[layer].defined());
  expect_equals_full_forward(*model, text, last_off, second, kept);
  kept[last] = second.attention[last];

  // Then also one in layer 2 (index 1 where there is one): layers from there run.
  const int middle = std::min(1, last);
  const auto both_off = gates_off(config, {{last, 1}, {middle, 0}});
  const auto third = staged.run(text, both_off);
  EXPECT_EQ(third.first_layer_run, middle);
  expect_equals_full_forward(*model, text, both_off, third, kept);

  // An older run's replay still gives that run's attention, not the newest run's (which differs
  // above the middle layer's gate).
  EXPECT_TRUE(torch::equal(first.replay.attention(last), first.attention[last]));
  if (middle < last) EXPECT_FALSE(torch::equal(first.replay.attention(last), third.attention[last]));
  for (int layer = middle; layer <= last; ++layer) kept[layer] = third.attention[layer];

  // The same gates again run nothing and give the same final states.
  const auto again = staged.run(text, both_off);
  EXPECT_EQ(again.first_layer_run, config.n_blocks);
  expect_equals_full_forward(*model, text, both_off, again, kept);

  // Another text starts over.
  const auto other = encoding_of({4, 4, 8});
  const auto fresh = staged.run(other, both_off);
  EXPECT_EQ(fresh.first_layer_run, 0);
  expect_equals_full_forward(*model, other, both_off, fresh, {});
}

class StagedFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(StagedFamilies, ReRunStartsAtTheLowestChangedLayerAndEqualsAFullForward) {
  expect_re_runs_equal_full_forwards(GetParam(), -1);
}

// A long text's states go to a temporary file (kept_state.h): the same runs, replays and re-runs.
TEST_P(StagedFamilies, StatesKeptInAFileGiveTheSameRuns) { expect_re_runs_equal_full_forwards(GetParam(), 0); }

INSTANTIATE_TEST_SUITE_P(Families, StagedFamilies,
                         ::testing::Values("transformer_lm", "bet_sf", "bet_sg", "encoder_classifier", "lama",
                                           "bigru_mean", "llama", "qwen3", "gemma2", "gemma3_capped", "phi3_grouped",
                                           "olmo2"));

// With an observer each layer run is handed over as it is made and none is kept in the result.
TEST(StagedCapture, AnObserverSeesEachLayerRunAndNothingIsKept) {
  torch::manual_seed(13);
  const auto config = four_layer_config("bet_sf");
  auto model = create_model(config);
  const auto text = encoding_of({5, 1, 9, 3, 3, 7});
  StagedCapture kept(*model), observed(*model);
  const auto gates = gates_off(config, {{2, 0}});
  kept.run(text, {});
  observed.run(text, {}, [](int64_t, const torch::Tensor&) {});
  const auto full = kept.run(text, gates);
  std::vector<int64_t> seen;
  const auto run = observed.run(text, gates, [&](int64_t layer, const torch::Tensor& probabilities) {
    seen.push_back(layer);
    EXPECT_TRUE(torch::equal(probabilities, full.attention[static_cast<size_t>(layer)])) << "layer " << layer;
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(run.attention.empty());
  EXPECT_EQ(run.first_layer_run, 2);
  EXPECT_TRUE(torch::equal(run.final_hidden, full.final_hidden));
}

TEST(StagedCapture, AllOnSpelledOutIsTheSameRunAsNoGates) {
  torch::manual_seed(12);
  const auto config = four_layer_config("transformer_lm");
  auto model = create_model(config);
  StagedCapture staged(*model);
  const auto text = encoding_of({1, 2, 3, 4});
  staged.run(text, {});
  EXPECT_EQ(staged.run(text, gates_off(config, {})).first_layer_run, config.n_blocks);
}

// Its own budget (the window's, smaller than the process's) tiles every run and every replay; the
// tiles give the untiled run's values.
TEST(StagedCapture, ItsOwnMemoryBudgetTilesEachRunAndReplay) {
  torch::manual_seed(14);
  const auto config = four_layer_config("transformer_lm");
  auto model = create_model(config);
  const auto text = encoding_of({3, 7, 1, 12, 5, 9, 2});
  const int64_t row = 3 * 7 * (4 + 8);  // 3 heads × 7 keys × (F32 scores + the float32 softmax's two copies)
  StagedCapture whole(*model), tiled(*model, -1, 2 * row);
  const auto expected = whole.run(text, {});
  std::vector<std::vector<int64_t>> first_rows(4);
  const auto run = tiled.run(text, {}, {}, [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
    first_rows[static_cast<size_t>(layer)].push_back(first_row);
    EXPECT_TRUE(torch::allclose(tile, expected.attention[static_cast<size_t>(layer)].narrow(2, first_row, tile.size(2)),
                                0.0, 1e-6))
        << "layer " << layer << " row " << first_row;
  });
  for (const auto& rows : first_rows) EXPECT_EQ(rows, (std::vector<int64_t>{0, 2, 4, 6}));
  EXPECT_TRUE(torch::allclose(run.final_hidden, expected.final_hidden, 0.0, 1e-6));
  std::vector<int64_t> replayed;
  run.replay.tiles(3, [&](int64_t first_row, const torch::Tensor&) { replayed.push_back(first_row); });
  EXPECT_EQ(replayed, (std::vector<int64_t>{0, 2, 4, 6}));

  StagedCapture too_small(*model, -1, 100);
  EXPECT_EQ(test::error_of([&] { too_small.run(text, {}); }),
            "the memory budget of 100 B is too small for one row of attention (3 heads × 7 keys = 252 B): the smallest "
            "that works is --memory-budget 1K");
}

}  // namespace
}  // namespace aw
