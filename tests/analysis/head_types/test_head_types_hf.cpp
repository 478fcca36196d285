// tests/analysis/head_types/test_head_types_hf.cpp — the head-type scores of the tiny llama, mistral,
// qwen2 and gpt_neox folders equal what plain float64 loops over Hugging Face's own attention give
// (tests/fixtures/head_analyses/, written by scripts/fixtures/make_head_analysis_fixtures.py): each
// sequence alone, and the three padded into one batch (their pooled scores).
#include "analysis/head_types/head_types.h"
#include "models/checkpoint/checkpoint.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/head_analyses/";
const char* const kSequences[] = {"plain", "special", "repeated"};

nlohmann::json reference_of(const std::string& family) {
  std::ifstream in(kReferences + family + ".json");
  return nlohmann::json::parse(in);
}

ModelInput batch_of(const std::vector<std::vector<int64_t>>& sequences) {
  size_t longest = 0;
  for (const auto& ids : sequences) longest = std::max(longest, ids.size());
  const auto count = static_cast<int64_t>(sequences.size());
  ModelInput input;
  input.input_ids = torch::zeros({count, static_cast<int64_t>(longest)}, torch::kLong);
  input.attention_mask = torch::zeros({count, static_cast<int64_t>(longest)}, torch::kLong);
  for (int64_t b = 0; b < count; ++b) {
    const auto n = static_cast<int64_t>(sequences[b].size());
    input.input_ids[b].narrow(0, 0, n).copy_(torch::tensor(sequences[b], torch::kLong));
    input.attention_mask[b].narrow(0, 0, n).fill_(1);
  }
  return input;
}

class HeadTypesHuggingFace : public ::testing::TestWithParam<std::string> {};

// The scores every model has (learned_sink: models with learned sinks only, test_head_types.cpp).
constexpr int kEveryModelsTypes = static_cast<int>(HeadType::LearnedSink);

TEST_P(HeadTypesHuggingFace, EachSequenceAndThePaddedBatchEqualTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  const auto reference = reference_of(GetParam())["head_scores"];
  std::vector<std::vector<int64_t>> all;
  for (const char* name : kSequences) {
    const auto& sequence = reference["sequences"][name];
    const auto ids = sequence["ids"].get<std::vector<int64_t>>();
    all.push_back(ids);
    const auto sums = head_type_sums(*loaded.model, {batch_of({ids})}, {});
    for (int type = 0; type < kEveryModelsTypes; ++type) {
      const std::string score = head_type_names()[type];
      const auto expected = sequence["sums"][score];
      const int64_t rows = sequence["counts"][score].get<int64_t>();
      for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer)
        for (int64_t head = 0; head < loaded.config.heads_per_block[layer]; ++head) {
          EXPECT_NEAR(sums[0][type][layer][head].item<double>(), expected[layer][head].get<double>(), 1e-5)
              << name << " " << score << " " << layer + 1 << "." << head + 1;
          EXPECT_EQ(sums[1][type][layer][head].item<double>(), static_cast<double>(rows)) << name << " " << score;
        }
    }
  }
  // The three padded together: the pooled scores (rows of every sequence, not their means).
  const auto sums = head_type_sums(*loaded.model, {batch_of(all)}, {});
  const auto scores = head_type_scores({sums, {}}, loaded.config.heads_per_block);
  for (const auto& head : scores)
    for (int type = 0; type < kEveryModelsTypes; ++type) {
      const auto& expected = reference["pooled"][head_type_names()[type]];
      if (expected.is_null()) {
        EXPECT_TRUE(std::isnan(head.score[type]));
        continue;
      }
      EXPECT_NEAR(head.score[type], expected[head.layer - 1][head.head - 1].get<double>(), 1e-5)
          << head_type_names()[type] << " " << head.layer << "." << head.head;
      EXPECT_EQ(head.rows[type], reference["pooled_counts"][head_type_names()[type]].get<int64_t>());
    }
}

INSTANTIATE_TEST_SUITE_P(Families, HeadTypesHuggingFace,
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential",
                                           "qwen3", "gemma2", "gemma3", "phi3_grouped", "olmo2"));

}  // namespace
}  // namespace aw
