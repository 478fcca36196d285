// tests/models/text/test_tokenizer_hf_json.cpp — tokenizer.json (models/text/hf_tokenizer.h) against
// Hugging Face's own `tokenizers` library: scripts/fixtures/make_tokenizer_fixtures.py trained small
// tokenizers of the GPT-NeoX, Qwen2, Llama 3 and Llama 2 (SentencePiece-style) kinds with it and saved the
// ids and decoded text it gives; a GPT-2 folder with only a tokenizer.json encodes as with vocab.json +
// merges.txt; what the reader does not support is refused with one line naming the file.
#include "models/checkpoint/checkpoint.h"
#include "models/text/hf_tokenizer.h"
#include "models/text/tokenizer.h"
#include "tests/support/hf_layout_folders.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace aw {
namespace {

using namespace test::hf_layout;
using test::TempDir;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_tokenizers/";
const std::string kSupported =
    "BPE tokenizers as GPT-NeoX/Pythia, Qwen2, Llama 3, SmolLM, Llama 2 and TinyLlama ship, WordPiece as BERT's, "
    "Unigram as T5's without a precompiled normaliser";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

class HfTokenizerKinds : public ::testing::TestWithParam<std::string> {};

TEST_P(HfTokenizerKinds, IdsAndDecodedTextAreTheLibrarys) {
  const auto tokenizer = load_hf_tokenizer(kFixtures + GetParam() + ".tokenizer.json");
  EXPECT_EQ(tokenizer->kind(), GetParam().rfind("unigram", 0) == 0 ? "hf_unigram" : "hf_bpe");
  const auto expected = read_json(kFixtures + GetParam() + ".expected.json");
  ASSERT_GE(expected.at("cases").size(), 10u);
  for (const auto& item : expected.at("cases")) {
    const auto text = item.at("text").get<std::string>();
    const auto encoding = tokenizer->encode(text);
    EXPECT_EQ(encoding.ids, item.at("ids").get<std::vector<int64_t>>()) << "text: " << text;
    EXPECT_EQ(encoding.tokens.size(), encoding.ids.size());
    EXPECT_EQ(tokenizer->decode(encoding.ids), item.at("decoded").get<std::string>()) << "text: " << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, HfTokenizerKinds, ::testing::Values("neox", "qwen2", "llama3", "llama2", "metaspace",
                                                                   "metaspace_split", "unigram", "unigram_bytes"));

TEST(HfTokenizer, AddedTokensAreMatchedWholeAndExtendTheVocabulary) {
  const auto neox = load_hf_tokenizer(kFixtures + "neox.tokenizer.json");
  EXPECT_EQ(neox->vocab_size(), 401);  // 400 model tokens and the added run of four spaces
  EXPECT_EQ(neox->token_text(400), "    ");
  const auto encoding = neox->encode("<|endoftext|>");
  ASSERT_EQ(encoding.ids.size(), 1u);
  EXPECT_EQ(encoding.ids[0], neox->token_id("<|endoftext|>"));
  EXPECT_EQ(encoding.tokens[0], "<|endoftext|>");
  EXPECT_EQ(neox->decode(encoding.ids), "");  // special: skipped
  // The Llama 3 kind's template puts BOS first, even before nothing.
  const auto llama3 = load_hf_tokenizer(kFixtures + "llama3.tokenizer.json");
  EXPECT_EQ(llama3->encode("").ids, std::vector<int64_t>{llama3->token_id("<|begin_of_text|>")});
}

TEST(HfTokenizer, UnsupportedKindsAreRefusedWithOneLine) {
  // A real T5 / XLM-R file normalises with SentencePiece's precompiled charsmap first: refused by name.
  test::TempDir dir;
  auto json = read_json(kFixtures + "unigram.tokenizer.json");
  json["normalizer"] = {{"type", "Sequence"},
                        {"normalizers", {{{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}}}}};
  test::write_file(dir.file("tokenizer.json"), json.dump());
  EXPECT_EQ(test::error_of([&] { load_hf_tokenizer(dir.file("tokenizer.json")); }),
            dir.file("tokenizer.json") + ": the Precompiled normalizer (SentencePiece's precompiled_charsmap) is not "
                                         "supported (" + kSupported + ")");
  json = read_json(kFixtures + "unigram.tokenizer.json");
  json["model"] = {{"type", "WordLevel"}, {"vocab", {{"a", 0}}}, {"unk_token", "a"}};
  test::write_file(dir.file("tokenizer.json"), json.dump());
  EXPECT_EQ(test::error_of([&] { load_hf_tokenizer(dir.file("tokenizer.json")); }),
            dir.file("tokenizer.json") + ": a WordLevel model is not supported (" + kSupported + ")");
}

TEST(HfTokenizer, BadFilesGiveOneLineNamingTheFile) {
  test::TempDir dir;
  const auto path = dir.file("tokenizer.json");
  const auto base = read_json(kFixtures + "qwen2.tokenizer.json");
  const auto error_with = [&](const std::function<void(nlohmann::json&)>& change) {
    auto json = base;
    change(json);
    test::write_file(path, json.dump());
    return test::error_of([&] { load_hf_tokenizer(path); });
  };
  EXPECT_EQ(test::error_of([&] { load_hf_tokenizer(dir.file("missing.json")); }),
            dir.file("missing.json") + ": cannot be read (missing or not a file)");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["model"]["merges"][0] = {"h", "zz"}; }),
            path + ": model.merges[0]: merge 'h zz' uses 'zz', which is not in the vocabulary");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["model"]["merges"][1] = json["model"]["merges"][0]; }),
            path + ": model.merges[1]: merge 'h e' repeats model.merges[0]");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["pre_tokenizer"] = nullptr; }),
            path + ": a BPE without byte_fallback or a ByteLevel pre-tokenizer is not supported (" + kSupported + ")");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["model"]["merges"][0] = 7; }),
            path + ": model.merges[0]: is 7, not \"left right\" or [left, right]");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["model"]["vocab"]["h"] = "x"; }),
            path + ": model.vocab: token 'h' has id \"x\", not an integer");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json.erase("model"); }), path + ": the file has no \"model\"");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["normalizer"] = {{"type", "NFKC"}}; }),
            path + ": the normalizer NFKC is not supported (" + kSupported + ")");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }),
            path + ": the Split behavior Removed is not supported (" + kSupported + ")");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a"; }),
            path + ": pre-tokenisation pattern '(a' does not compile at offset 2: missing closing parenthesis");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["added_tokens"][1]["id"] = int64_t{1} << 60; }),
            path + ": added_tokens[1]'s id 1152921504606846976 is past the 420 tokens of the vocabulary and the 3 added "
                   "tokens");
  EXPECT_EQ(error_with([](nlohmann::json& json) { json["added_tokens"][1]["id"] = 5; }),
            path + ": added token '<|im_start|>' has id 5, which the vocabulary gives to '#'");
  EXPECT_EQ(error_with([](nlohmann::json& json) {
              json["post_processor"] = {{"type", "TemplateProcessing"},
                                        {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}}},
                                        {"special_tokens", nlohmann::json::object()}};
            }),
            path + ": the template's special token '<s>' is not in its special_tokens");
}

// A folder whose only tokenizer file is a tokenizer.json (ByteLevel with GPT-2's regex, the same
// vocabulary and merges) loads it and encodes as GPT-2's own files do.
TEST(Gpt2Reference, AFolderWithOnlyTokenizerJsonReadsIt) {
  TempDir dir;
  write_gpt2_folder(dir, random_gpt2_weights(104), "");
  const auto gpt2 = load_gpt2_tokenizer(dir.file("vocab.json"), dir.file("merges.txt"));
  nlohmann::json merges = nlohmann::json::array();
  std::ifstream merges_file(dir.file("merges.txt"));
  for (std::string line; std::getline(merges_file, line);)
    if (!line.empty() && line[0] != '#') merges.push_back(line);
  std::ifstream vocab_file(dir.file("vocab.json"));
  const nlohmann::json tokenizer_json = {
      {"version", "1.0"},
      {"added_tokens", nlohmann::json::array()},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
      {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false},
                 {"byte_fallback", false}, {"vocab", nlohmann::json::parse(vocab_file)}, {"merges", merges}}}};
  test::write_file(dir.file("tokenizer.json"), tokenizer_json.dump());
  std::filesystem::remove(dir.file("vocab.json"));
  std::filesystem::remove(dir.file("merges.txt"));
  const auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  EXPECT_EQ(loaded.tokenizer->kind(), "hf_bpe");
  EXPECT_EQ(loaded.tokenizer->vocab_size(), kGpt2Vocab);
  for (const std::string text : {"the cat sat on the mat", "  spaced   out\n", "naïve 日本 🍕 don't"}) {
    EXPECT_EQ(loaded.tokenizer->encode(text).ids, gpt2->encode(text).ids) << text;
    EXPECT_EQ(loaded.tokenizer->encode(text).tokens, gpt2->encode(text).tokens) << text;
  }
}

}  // namespace
}  // namespace aw
