// tests/models/nn/test_minilm.cpp — the real all-MiniLM-L6-v2 folder as its publisher ships it (config.json,
// model.safetensors, tokenizer.json, no vocab.txt) opens, and its ids, every layer's attention and the
// last hidden state equal Hugging Face's (AutoTokenizer, BertModel eager) on hard texts. The folder and
// its reference come from scripts/fixtures/minilm_reference.py (90 MB, not committed): the test reads
// the folder AW_MINILM_DIR names and counts as skipped without it.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::max_difference;

TEST(MiniLm, ThePublishedFolderOpensAndEqualsHuggingFace) {
  const char* folder = std::getenv("AW_MINILM_DIR");
  if (folder == nullptr || !std::filesystem::exists(std::string(folder) + "/reference.safetensors"))
    GTEST_SKIP() << "AW_MINILM_DIR names no folder made by scripts/fixtures/minilm_reference.py";
  ASSERT_FALSE(std::filesystem::exists(std::string(folder) + "/vocab.txt"));  // tokenizer.json only
  const auto loaded = load_checkpoint(folder);
  EXPECT_EQ(loaded.tokenizer->kind(), "wordpiece");
  const auto reference = SafetensorsFile::open(std::string(folder) + "/reference.safetensors");
  const auto texts = nlohmann::json::parse(reference->metadata().at("texts"));
  torch::InferenceMode inference;
  for (size_t index = 0; index < texts.size(); ++index) {
    const auto text = texts[index].get<std::string>();
    const auto encoding = loaded.tokenizer->encode(text);
    const auto ids = reference->tensor("ids_" + std::to_string(index));
    ASSERT_EQ(encoding.ids, std::vector<int64_t>(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel())) << text;
    ModelInput input;
    input.input_ids = ids.unsqueeze(0).clone();
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto result = loaded.model->forward(input, options);
    const auto attention = torch::stack(result.attention).select(1, 0);
    const auto expected = reference->tensor("attention_" + std::to_string(index));
    EXPECT_TRUE(torch::allclose(attention, expected, 1e-4, 1e-4)) << index << ": " << max_difference(attention, expected);
    const auto hidden = result.hidden[0];
    const auto expected_hidden = reference->tensor("hidden_" + std::to_string(index));
    EXPECT_TRUE(torch::allclose(hidden, expected_hidden, 1e-4, 1e-4)) << index << ": " << max_difference(hidden, expected_hidden);
  }
}

}  // namespace
}  // namespace aw
