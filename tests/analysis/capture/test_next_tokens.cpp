// tests/analysis/capture/test_next_tokens.cpp — `attend --logits`: the next-token logits of a text and
// their K best tokens against Hugging Face's own classes (the llama and gemma2 fixtures' logits), the
// logits written beside the attention, and the refusals (analysis/capture/next_tokens.h,
// attention_file_writer.h).
#include "analysis/capture/attention_file_writer.h"
#include "analysis/capture/next_tokens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::max_difference;
using test::TempDir;
using test::hf_models::read_reference;

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

Encoding fixture_text(const std::string& fixture) {
  const auto ids = read_reference(fixture).get("ids_plain");
  Encoding encoding;
  encoding.ids.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  encoding.tokens.assign(encoding.ids.size(), "t");
  encoding.type_ids.assign(encoding.ids.size(), 0);
  return encoding;
}

class NextTokens : public ::testing::TestWithParam<std::string> {};

TEST_P(NextTokens, LogitsAndTheirBestTokensAreHuggingFaces) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  const auto theirs = read_reference(GetParam()).get("logits_plain");
  const auto ours = next_token_logits(*loaded.model, fixture_text(GetParam()));
  ASSERT_EQ(ours.sizes(), theirs.sizes());
  EXPECT_TRUE(torch::allclose(ours, theirs, 1e-4, 1e-4)) << max_difference(ours, theirs);

  const auto top = top_next_tokens(ours, 3);
  const auto [values, ids] = theirs.topk(3, -1);
  EXPECT_TRUE(torch::allclose(top.logits, values, 1e-4, 1e-4)) << max_difference(top.logits, values);
  for (int64_t position = 0; position < ids.size(0); ++position)
    for (int64_t rank = 0; rank < 3; ++rank) {
      // A tie (two logits within 1e-4) may come in either order.
      const bool tied = (rank > 0 && (values[position][rank - 1] - values[position][rank]).item<float>() < 1e-4) ||
                        (rank < 2 && (values[position][rank] - values[position][rank + 1]).item<float>() < 1e-4);
      if (!tied) EXPECT_EQ(top.ids[position][rank].item<int64_t>(), ids[position][rank].item<int64_t>()) << position;
    }
}

TEST_P(NextTokens, TheLogitsWrittenBesideTheAttentionAreTheForwardsOnes) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  const auto text = fixture_text(GetParam());
  TempDir dir;
  AttentionExportSettings settings;
  settings.path = dir.file("a.safetensors");
  settings.layers = {0};  // the logits need every layer all the same
  settings.logits = true;
  export_attention(*loaded.model, "m", text, settings);
  const auto file = SafetensorsFile::open(settings.path);
  const auto written = file->tensor("logits");
  EXPECT_EQ(written.scalar_type(), torch::kFloat32);
  // The captured layer forms its probabilities explicitly, the plain forward uses the fused kernel:
  // the same numbers to float32 rounding, not the same bits.
  const auto plain = next_token_logits(*loaded.model, text);
  EXPECT_TRUE(torch::allclose(written, plain, 1e-5, 1e-5)) << max_difference(written, plain);
  EXPECT_TRUE(file->contains("layer.1"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, NextTokens, ::testing::Values("llama", "gemma2"));

TEST(NextTokensRefused, OutsideTheVocabularyInANpyFileOrWithoutAnOutputHead) {
  EXPECT_EQ(error_of([] { top_next_tokens(torch::zeros({2, 5}), 6); }), "top-6 next tokens of a vocabulary of 5");
  EXPECT_EQ(error_of([] { top_next_tokens(torch::zeros({2, 5}), 0); }), "top-0 next tokens of a vocabulary of 5");
  const auto loaded = load_checkpoint(kModels + "llama");
  TempDir dir;
  AttentionExportSettings settings;
  settings.path = dir.file("a.npy");
  settings.layers = {0};
  settings.logits = true;
  EXPECT_EQ(error_of([&] { export_attention(*loaded.model, "m", fixture_text("llama"), settings); }),
            settings.path + ": logits go into a .safetensors file, beside the attention (a .npy file holds one layer)");
}

}  // namespace
}  // namespace aw
