// tests/models/nn/test_attention_tiles.cpp — attention computed in tiles of query rows
// (models/nn/attention.h) equals the whole matrix at once, on every family: the captured
// probabilities, the hidden states and the logits, with padding, diagonal interventions, BET(SF)'s
// two passes, grouped-query heads, rotary positions, a sliding window and an encoder–decoder's three
// kinds of block; a region's rows alone; a budget too small for one row is refused up front; and the
// feed-forward in chunks of tokens under the same budget equals it whole (to float rounding).
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/memory_budget.h"
#include "models/nn/attention.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <tuple>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::max_difference;
using test::tiny_config;

constexpr int64_t kOneTile = int64_t{1} << 40;  // a budget every test matrix fits whole

std::shared_ptr<AttentionModel> lively(std::shared_ptr<AttentionModel> model, uint64_t seed = 3) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->module().parameters())
    if (parameter.dim() >= 2) parameter.normal_(0.0, 0.4);
  model->module().eval();
  return model;
}

torch::ScalarType weight_dtype(AttentionModel& model) { return model.module().parameters().front().scalar_type(); }

// Two rows of `length` tokens, the second padded after `length - 3` when `padded`.
ModelInput two_rows(int64_t vocabulary, int64_t length, bool padded, uint64_t seed = 11) {
  torch::manual_seed(seed);
  ModelInput input;
  input.input_ids = torch::randint(0, vocabulary, {2, length}, torch::kLong);
  if (padded) {
    input.attention_mask = torch::ones({2, length}, torch::kLong);
    input.attention_mask[1].narrow(0, length - 3, 3).zero_();
  }
  return input;
}

// The forward with every layer captured, under `budget`; `tiles` counts the tiles seen and checks
// that each fits the budget.
ForwardResult captured(AttentionModel& model, const ModelInput& input, int64_t budget, int64_t* tiles = nullptr,
                       DiagonalIntervention diagonal = {}) {
  torch::InferenceMode inference;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  options.memory_budget = budget;
  options.diagonal = diagonal;
  options.tile_observer = [&](int64_t, int64_t, const torch::Tensor& tile) {
    if (tiles) ++*tiles;
    const auto row = attention_row_bytes(tile.size(0), tile.size(1), tile.size(3), weight_dtype(model));
    EXPECT_LE(tile.size(2) * row, budget) << "a tile of " << tile.size(2) << " rows is over the budget";
  };
  return model.forward(input, options);
}

// Tiles of two query rows.
int64_t two_row_budget(AttentionModel& model, const ModelInput& input) {
  const auto& config = model.config();
  return 2 * attention_row_bytes(input.input_ids.size(0), config.max_heads(), input.input_ids.size(1),
                                 weight_dtype(model));
}

void expect_tiled_equals_whole(AttentionModel& model, const ModelInput& input, DiagonalIntervention diagonal = {}) {
  const auto whole = captured(model, input, kOneTile, nullptr, diagonal);
  int64_t tiles = 0;
  const auto tiled = captured(model, input, two_row_budget(model, input), &tiles, diagonal);
  EXPECT_GT(tiles, static_cast<int64_t>(whole.attention.size()));  // more than one tile per layer
  ASSERT_EQ(tiled.attention.size(), whole.attention.size());
  for (size_t layer = 0; layer < whole.attention.size(); ++layer)
    // 5e-6: LibTorch's matrix products round by their shapes (a tile's rows against the whole) and by
    // the CPU's kernel set: by the second layer 1.1e-6 apart with AVX-512, 1.6e-6 with AVX2
    // (ATEN_CPU_CAPABILITY=avx2, MKL_ENABLE_INSTRUCTIONS=AVX2). A tile off by one row moves tenths.
    EXPECT_TRUE(torch::allclose(tiled.attention[layer], whole.attention[layer], 5e-6, 5e-6))
        << "layer " << layer << ": " << max_difference(tiled.attention[layer], whole.attention[layer]);
  // The states and logits carry the probabilities' float rounding through every layer: to 1e-5 of
  // their own scale (a mask or tile off by one row moves them by tenths).
  for (const auto& [ours, theirs, what] : {std::tuple{tiled.hidden, whole.hidden, "hidden"},
                                           std::tuple{tiled.logits, whole.logits, "logits"}}) {
    if (!theirs.defined()) continue;
    const double scale = std::max(1.0, theirs.abs().max().item<double>());
    EXPECT_TRUE(torch::allclose(ours, theirs, 0, 1e-5 * scale)) << what << ": " << max_difference(ours, theirs)
                                                                << " at scale " << scale;
  }
}

class NativeFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(NativeFamilies, TiledEqualsWholeWithAndWithoutPadding) {
  auto model = lively(create_model(tiny_config(GetParam())));
  expect_tiled_equals_whole(*model, two_rows(20, 13, false));
  expect_tiled_equals_whole(*model, two_rows(20, 13, true));
}

INSTANTIATE_TEST_SUITE_P(Families, NativeFamilies, ::testing::Values("transformer_lm", "bet_sf", "bet_sg"));

TEST(AttentionTiles, DiagonalInterventionsTileToo) {
  auto model = lively(create_model(tiny_config("transformer_lm")));
  const auto input = two_rows(20, 13, true);
  expect_tiled_equals_whole(*model, input, DiagonalIntervention::scale(0.2));
  expect_tiled_equals_whole(*model, input, DiagonalIntervention::mask());
}

TEST(AttentionTiles, BertEncoderWithPaddingTiles) {
  const nlohmann::json json = {{"model_type", "bert"},          {"vocab_size", 20},         {"hidden_size", 12},
                               {"num_hidden_layers", 2},        {"num_attention_heads", 3}, {"intermediate_size", 24},
                               {"max_position_embeddings", 16}, {"hidden_dropout_prob", 0.0}};
  auto model = lively(create_model(parse_model_config(json, "tiny bert")));
  expect_tiled_equals_whole(*model, two_rows(20, 14, true));
}

class HuggingFaceFamilies : public ::testing::TestWithParam<std::string> {};

// Grouped-query heads (llama, qwen2, mistral), rotary positions, mistral's 5-token sliding window
// (the text is longer than it), biases, and GPT-NeoX's partial rotary and parallel residual.
TEST_P(HuggingFaceFamilies, TiledEqualsWhole) {
  auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/" + GetParam());
  expect_tiled_equals_whole(*loaded.model, two_rows(loaded.config.vocab_size, 23, false));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HuggingFaceFamilies,
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "qwen3", "gemma2",
                                           "gemma3_capped", "phi3_grouped", "olmo2"));

TEST(AttentionTiles, TranslationModelsEncoderDecoderAndCrossBlocksTile) {
  const nlohmann::json json = {{"model_type", "transformer_mt"}, {"vocab_size", 20}, {"encoder_layers", 2},
                               {"decoder_layers", 1},            {"n_heads", 2},     {"d_model", 8},
                               {"d_ff", 16},                     {"max_positions", 32}, {"norm", "pre"},
                               {"dropout", 0.0},                 {"decoder_bird_eye", true}};
  auto model = lively(create_model(parse_model_config(json, "tiny transformer_mt")));
  auto input = two_rows(20, 11, true);
  torch::manual_seed(4);
  input.decoder_input_ids = torch::randint(0, 20, {2, 9}, torch::kLong);
  input.decoder_attention_mask = torch::ones({2, 9}, torch::kLong);
  input.decoder_attention_mask[0].narrow(0, 7, 2).zero_();
  expect_tiled_equals_whole(*model, input);
}

TEST(AttentionTiles, ARegionComputesOnlyItsRows) {
  auto model = lively(create_model(tiny_config("bet_sf")));  // BET(SF): R_j still needs every row
  const auto input = two_rows(20, 13, true);
  const auto whole = captured(*model, input, kOneTile);
  torch::InferenceMode inference;
  const auto hidden = model->run_layers(model->embed(input), input, 0, 1, {}).hidden;  // entering layer 1
  std::vector<int64_t> firsts;
  ForwardOptions options;
  options.memory_budget = two_row_budget(*model, input);
  model->layer_attention_tiles(hidden, input, 1, options,
                               [&](int64_t first_row, const torch::Tensor& tile) {
                                 firsts.push_back(first_row);
                                 const auto expected = whole.attention[1].narrow(2, first_row, tile.size(2));
                                 EXPECT_TRUE(torch::allclose(tile, expected, 0, 1e-6)) << max_difference(tile, expected);
                               },
                               4, 9);
  EXPECT_EQ(firsts, (std::vector<int64_t>{4, 6, 8}));
  const auto joined = model->layer_attention(hidden, input, 1, {}, 4, 9);
  EXPECT_EQ(joined.size(2), 5);
  EXPECT_EQ(error_of([&] { model->layer_attention(hidden, input, 1, {}, 9, 20); }), "rows 10-20 are outside the 13 tokens");
}

TEST(AttentionTiles, ABudgetBelowOneRowIsRefusedBeforeAnyLayerRuns) {
  auto model = lively(create_model(tiny_config("transformer_lm")));
  const auto input = two_rows(20, 12, false);
  ForwardOptions options;
  options.memory_budget = 100;
  torch::InferenceMode inference;
  // One row: 2 sequences × 3 heads × 12 keys × (4 + 8) bytes = 864 B.
  EXPECT_EQ(error_of([&] { model->forward(input, options); }),
            "the memory budget of 100 B is too small for one row of attention (2 sequences × 3 heads × 12 keys = "
            "864 B): the smallest that works is --memory-budget 1K");
  options.memory_budget = 864;
  EXPECT_NO_THROW(model->forward(input, options));  // one row per tile
}

// Mistral's window is 5 tokens: a row of 4 tokens padded to 13 has query rows whose every key is
// padding. They attend to every key (as Hugging Face's additive masks make them), so no NaN reaches
// the real rows through the next layer, whose logits equal those of the 4 tokens alone.
TEST(AttentionTiles, PaddedRowsPastASlidingWindowStayFinite) {
  auto model = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/mistral").model;
  torch::InferenceMode inference;
  auto input = two_rows(model->config().vocab_size, 13, /*padded=*/true);
  input.attention_mask[1].narrow(0, 4, 9).zero_();
  const auto logits = model->forward(input, {}).logits;
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
  ModelInput alone;
  alone.input_ids = input.input_ids[1].narrow(0, 0, 4).unsqueeze(0);
  const auto expected = model->forward(alone, {}).logits[0];
  EXPECT_TRUE(torch::allclose(logits[1].narrow(0, 0, 4), expected, 1e-5, 1e-5))
      << max_difference(logits[1].narrow(0, 0, 4), expected);
}

// LibTorch 2.x: a forward nobody captures mixes the context with the fused kernel. Its loss, the
// gates' gradients (head importance) and a gated forward equal the explicit path's to 1e-5, with
// padding, a sliding window (mistral) and grouped-query heads. Debian's 1.13 has no fused kernel.
class FusedAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(FusedAttention, EqualsTheExplicitPathForwardAndBackward) {
  const bool fixture = GetParam() != "transformer_lm";
  std::shared_ptr<AttentionModel> model;
  if (fixture) model = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/" + GetParam()).model;
  else model = lively(create_model(tiny_config(GetParam())));
  const auto& config = model->config();
  const auto input = two_rows(config.vocab_size, 13, /*padded=*/true);
  struct Run {
    torch::Tensor logits, loss, gradient;
  };
  auto run = [&](bool explicit_attention) {
    auto gates = torch::ones({config.n_blocks, config.max_heads()}, torch::requires_grad());
    ForwardOptions options;
    options.head_gates = gates;
    options.explicit_attention = explicit_attention;
    const auto logits = model->forward(input, options).logits;
    const auto loss = logits.logsumexp(-1).mean();
    loss.backward();
    return Run{logits.detach(), loss.detach(), gates.grad()};
  };
  const auto fused = run(false), reference = run(true);
  EXPECT_NEAR(fused.loss.item<double>(), reference.loss.item<double>(), 1e-5 * std::abs(reference.loss.item<double>()));
  EXPECT_TRUE(torch::allclose(fused.gradient, reference.gradient, 1e-5, 1e-5)) << max_difference(fused.gradient, reference.gradient);
  // Each logit to 1e-5 of the largest: the kernel sums in another order (seen: 1.7e-5 apart on qwen2's
  // logits on torch 2.15's CPU kernel).
  const double scale = reference.logits.abs().max().item<double>();
  EXPECT_LE((fused.logits - reference.logits).abs().max().item<double>(), 1e-5 * std::max(1.0, scale))
      << max_difference(fused.logits, reference.logits) << " of logits up to " << scale;
}

INSTANTIATE_TEST_SUITE_P(Families, FusedAttention, ::testing::Values("transformer_lm", "llama", "mistral", "qwen2"));

// Chunks of 5 tokens (a budget of 5 tokens' inner activations, 4 × d_ff floats each when gated) equal
// the whole pass for GPT-2's MLP and SwiGLU, batch of 2, down to one token at a time. Not bit for bit:
// The BLAS sums a 10-row product in another order than a 74-row one (2e-6 at a scale of 20 here), so
// to 1e-6 of the output's scale. With gradients on it is never chunked (the backward would keep every
// chunk's activations anyway), so training is unchanged bit for bit.
TEST(FeedForwardChunks, EqualTheWholePassToFloatRounding) {
  for (const bool gated : {false, true}) {
    auto config = tiny_config("transformer_lm");
    config.decoder.gated_mlp = gated;
    config.activation = gated ? Activation::Silu : Activation::Gelu;
    torch::manual_seed(5);
    FeedForward mlp(config);
    {
      torch::NoGradGuard no_grad;
      for (auto& parameter : mlp->parameters()) parameter.normal_(0.0, 0.5);
    }
    const auto x = torch::randn({2, 37, config.d_model});
    const int64_t budget = 5 * 2 * config.d_ff * (gated ? 4 : 2) * 4;
    torch::Tensor whole;
    {
      torch::InferenceMode inference;
      whole = mlp(x);
      const double scale = whole.abs().max().item<double>();
      for (const int64_t asked : {budget, budget / 10}) {  // 5 tokens; under one token's: one at a time
        const auto chunked = mlp(x, asked);
        EXPECT_TRUE(torch::allclose(chunked, whole, 0, 1e-6 * scale))
            << (gated ? "SwiGLU" : "GELU") << ", budget " << asked << ": " << max_difference(chunked, whole)
            << " at scale " << scale;
      }
    }
    const auto with_gradients = mlp(x, budget);
    EXPECT_TRUE(with_gradients.requires_grad());
    EXPECT_TRUE(torch::equal(with_gradients.detach(), whole));
  }
}

TEST(MemoryBudget, SizesReadAndPrintAsPeopleWriteThem) {
  EXPECT_EQ(parse_memory_size("512M"), 512ll << 20);
  EXPECT_EQ(parse_memory_size("2G"), 2ll << 30);
  EXPECT_EQ(parse_memory_size("2GiB"), 2ll << 30);
  EXPECT_EQ(parse_memory_size("1.5G"), 3ll << 29);
  EXPECT_EQ(parse_memory_size("64k"), 64ll << 10);
  EXPECT_EQ(parse_memory_size("4096"), 4096);
  for (const char* bad : {"", "0", "-1G", "lots", "5X"})
    EXPECT_EQ(error_of([&] { parse_memory_size(bad); }),
              std::string("--memory-budget: '") + bad + "' is not a memory size (a positive number with K, M or G, e.g. 512M)");
  EXPECT_EQ(format_bytes(900), "900 B");
  EXPECT_EQ(format_bytes(3 << 20), "3.0 MiB");
  EXPECT_EQ(format_bytes(768ll << 20), "768 MiB");
  EXPECT_EQ(memory_size_argument((2 << 20) + 1), "3M");
  EXPECT_EQ(memory_size_argument(864), "1K");
  set_attention_memory_budget(123456);
  EXPECT_EQ(attention_memory_budget(), 123456);
  set_attention_memory_budget(0);  // the machine's default again: between 64 MiB and 1 GiB
  EXPECT_GE(attention_memory_budget(), 64ll << 20);
  EXPECT_LE(attention_memory_budget(), 1ll << 30);
}

}  // namespace
}  // namespace aw
