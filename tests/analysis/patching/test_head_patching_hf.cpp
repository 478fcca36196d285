// tests/analysis/patching/test_head_patching_hf.cpp — activation patching and direct logit attribution
// of the tiny llama, mistral, qwen2 and gpt_neox folders equal what Hugging Face's own classes give with
// hooks on their output projections (tests/fixtures/head_analyses/, written by
// scripts/fixtures/make_head_analysis_fixtures.py): the clean and corrupted logit differences, each
// head's output patched at every position and at position 7, its attention pattern patched, and its
// DLA — the three pairs batched together (padded: their prompts are of one length here).
#include "analysis/patching/head_patching.h"
#include "models/checkpoint/checkpoint.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/head_analyses/";

// Both sides run in float32, the reference on whatever CPU wrote the fixtures: the metrics are differences
// of logit differences, so the logits' rounding shows at the 1e-5 level and moves with the BLAS kernels
// the CPU gets (up to 2.2e-5 for a patched pattern on an AMD EPYC, under 1e-5 on the machine that wrote them).
void expect_close(double computed, double expected, const std::string& what) {
  EXPECT_NEAR(computed, expected, 5e-5 * std::max(1.0, std::abs(expected))) << what;
}

class PatchingHuggingFace : public ::testing::TestWithParam<std::string> {};

TEST_P(PatchingHuggingFace, PatchedMetricsAndAttributionEqualTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  std::ifstream in(kReferences + GetParam() + ".json");
  const auto reference = nlohmann::json::parse(in)["patching"];
  std::vector<PatchPair> pairs;
  for (const auto& pair : reference["pairs"]) {
    PatchPair made;
    made.clean = pair["clean"].get<std::vector<int64_t>>();
    made.corrupted = pair["corrupted"].get<std::vector<int64_t>>();
    made.answer = pair["answer"].get<int64_t>();
    made.foil = pair["foil"].get<int64_t>();
    pairs.push_back(made);
  }
  PatchSettings settings;
  const auto every = patch_heads(*loaded.model, pairs, settings);
  settings.position = reference["output_at_position"].get<int64_t>();
  const auto one = patch_heads(*loaded.model, pairs, settings);
  settings.position = -1;
  settings.kind = PatchKind::Pattern;
  const auto pattern = patch_heads(*loaded.model, pairs, settings);
  EXPECT_EQ(every.dla_refused.empty(), !reference["pairs"][0]["dla"].is_null());
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto& expected = reference["pairs"][p];
    const auto at = static_cast<int64_t>(p);
    expect_close(every.clean[at].item<double>(), expected["m_clean"].get<double>(), "m_clean");
    expect_close(every.corrupted[at].item<double>(), expected["m_corrupted"].get<double>(), "m_corrupted");
    for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer)
      for (int64_t head = 0; head < loaded.config.heads_per_block[layer]; ++head) {
        const auto where = GetParam() + " pair " + std::to_string(p) + " head " + std::to_string(layer + 1) + "." +
                           std::to_string(head + 1);
        expect_close(every.patched[layer][head][at].item<double>(), expected["output"][layer][head].get<double>(),
                     where + " output");
        expect_close(one.patched[layer][head][at].item<double>(), expected["output_at"][layer][head].get<double>(),
                     where + " output_at");
        expect_close(pattern.patched[layer][head][at].item<double>(), expected["pattern"][layer][head].get<double>(),
                     where + " pattern");
        if (expected["dla"].is_null())  // Gemma, OLMo 2: no head's write reaches the logits alone
          EXPECT_TRUE(std::isnan(every.dla[layer][head][at].item<double>())) << where;
        else
          expect_close(every.dla[layer][head][at].item<double>(), expected["dla"][layer][head].get<double>(), where + " dla");
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, PatchingHuggingFace,
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential",
                                           "qwen3", "gemma2", "gemma3", "phi3_grouped", "olmo2"));

}  // namespace
}  // namespace aw
