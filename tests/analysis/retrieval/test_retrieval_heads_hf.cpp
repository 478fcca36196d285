// tests/analysis/retrieval/test_retrieval_heads_hf.cpp — the needle cases and retrieval counts of the tiny
// llama, mistral, qwen2 and gpt_neox folders equal what plain loops over Hugging Face's own eager
// attention and logits give (tests/fixtures/head_analyses/<family>.json, "retrieval", written by
// scripts/fixtures/make_head_analysis_fixtures.py): the case layout at each depth, the tokens asked
// and copied (greedy prefix), and per head the rows whose top key is the needle's token and the
// copied ones among them — for a random needle and for one the model does copy.
#include "analysis/retrieval/needle_cases.h"
#include "analysis/retrieval/retrieval_heads.h"
#include "models/checkpoint/checkpoint.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/head_analyses/";

// One block of the fixture ("retrieval" or its "repeated_needle") against the engine.
void expect_block(const LoadedModel& loaded, const nlohmann::json& block, const std::string& what) {
  NeedleSettings settings;
  settings.lengths = {block["length"].get<int64_t>()};
  settings.depths = block["depths"].get<std::vector<double>>();
  settings.cue = block["cue"].get<int64_t>();
  settings.prompt = block["prompt"].get<std::vector<int64_t>>();
  const auto cases = needle_cases(block["haystack"].get<std::vector<int64_t>>(),
                                  {block["needle"].get<std::vector<int64_t>>()}, settings);
  const auto result = retrieval_heads(*loaded.model, cases, settings, 2, {});
  ASSERT_EQ(cases.size(), block["cases"].size());
  for (size_t g = 0; g < cases.size(); ++g) {
    const auto& expected = block["cases"][g];
    const auto at = static_cast<int64_t>(g);
    const auto where = what + " depth " + std::to_string(settings.depths[g]);
    EXPECT_EQ(cases[g].ids, expected["ids"].get<std::vector<int64_t>>()) << where;
    EXPECT_EQ(cases[g].needle_start, expected["needle_start"].get<int64_t>()) << where;
    EXPECT_EQ(cases[g].copy_start, expected["copy_start"].get<int64_t>()) << where;
    EXPECT_EQ(result.asked[at].item<double>(), expected["asked"].get<double>()) << where;
    EXPECT_EQ(result.copied[at].item<double>(), expected["copied"].get<double>()) << where;
    for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer)
      for (int64_t head = 0; head < loaded.config.heads_per_block[layer]; ++head) {
        EXPECT_EQ(result.looked[at][layer][head].item<double>(), expected["looked"][layer][head].get<double>())
            << where << " head " << layer + 1 << "." << head + 1;
        EXPECT_EQ(result.hits[at][layer][head].item<double>(), expected["hits"][layer][head].get<double>())
            << where << " head " << layer + 1 << "." << head + 1;
      }
  }
}

class RetrievalHuggingFace : public ::testing::TestWithParam<std::string> {};

TEST_P(RetrievalHuggingFace, CasesAndCountsEqualTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  std::ifstream in(kReferences + GetParam() + ".json");
  const auto reference = nlohmann::json::parse(in)["retrieval"];
  expect_block(loaded, reference, GetParam() + " random needle");
  // Where the fixture script found a repeated token the model copies (not every random model has one).
  if (!reference["repeated_needle"]["token"].is_null())
    expect_block(loaded, reference["repeated_needle"], GetParam() + " repeated needle");
}

INSTANTIATE_TEST_SUITE_P(Families, RetrievalHuggingFace,
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential",
                                           "qwen3", "gemma2", "gemma3", "phi3_grouped", "olmo2"));

}  // namespace
}  // namespace aw
