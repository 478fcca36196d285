// tests/analysis/capture/test_translation_target.cpp — `translate --target`: a given translation read
// teacher-forced (analysis/capture/translation_capture.h). On the Marian and BART fixtures its source
// and decoder ids are the ones Hugging Face's tokenizer and shift_tokens_right give for each case, its
// log-probability is minus their loss times the labels, and every block is captured over those rows.
#include "analysis/capture/translation_capture.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/hf_translation_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::hf_translation::fixture_dir;
using test::hf_translation::read_json;

class TranslationTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(TranslationTarget, TheGivenTargetIsReadAsTrainingReadsItsReference) {
  const auto loaded = load_checkpoint(fixture_dir(GetParam()));
  auto& model = *loaded.model->sequence_to_sequence();
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  const auto reference = read_json(fixture_dir(GetParam()) + "/reference.json");
  for (const auto& item : reference.at("cases")) {
    const auto source = item.at("source").get<std::string>(), target = item.at("target").get<std::string>();
    const auto capture = capture_translation_of(model, codec, source, target);
    EXPECT_TRUE(capture.teacher_forced);
    EXPECT_EQ(capture.translation, target);
    EXPECT_EQ(capture.source_ids, item.at("input_ids").get<std::vector<int64_t>>()) << source;
    EXPECT_EQ(capture.decoder_ids, item.at("decoder_input_ids").get<std::vector<int64_t>>()) << target;
    const auto labels = item.at("labels").size();
    EXPECT_NEAR(-capture.hypothesis.score / static_cast<double>(labels), item.at("loss").get<double>(), 1e-4) << target;
    ASSERT_EQ(capture.attention.size(), static_cast<size_t>(loaded.config.n_blocks));
    for (int64_t block = 0; block < loaded.config.n_blocks; ++block) {
      const auto kind = loaded.config.attention_block(block).kind;
      const auto rows = kind == AttentionKind::Encoder ? capture.source_ids.size() : capture.decoder_ids.size();
      EXPECT_EQ(capture.attention[block].size(1), static_cast<int64_t>(rows));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TranslationTarget, ::testing::Values("marian_tiny", "bart_tiny"));

TEST(TranslationTargetRefused, AnEmptyTarget) {
  const auto loaded = load_checkpoint(fixture_dir("marian_tiny"));
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  EXPECT_EQ(error_of([&] { capture_translation_of(*loaded.model->sequence_to_sequence(), codec, "I am.", "   "); }),
            "the target is empty");
}

}  // namespace
}  // namespace aw
