// tests/models/text/test_tokenizer_wordpiece_json.cpp — WordPiece from a tokenizer.json (models/text/
// tokenizer_wordpiece_json.cpp): the ids and tokens the `tokenizers` library gives for hard texts
// (special tokens written inside words, decomposed accents, CJK, emoji, runs of spaces, an overlong
// word, a long paragraph) with an uncased template and a cased BertProcessing file
// (tests/fixtures/hf_tokenizers/, scripts/fixtures/make_tokenizer_fixtures.py), and the one-line
// refusals of what it does not read.
#include "models/errors.h"
#include "models/text/hf_tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_tokenizers/";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

class WordPieceJson : public ::testing::TestWithParam<std::string> {};

TEST_P(WordPieceJson, IdsAndTokensAreTheLibrarys) {
  const auto tokenizer = load_hf_tokenizer(kFixtures + GetParam() + ".tokenizer.json");
  EXPECT_EQ(tokenizer->kind(), "wordpiece");
  const auto expected = read_json(kFixtures + GetParam() + ".expected.json");
  ASSERT_GE(expected.at("cases").size(), 15u);
  for (const auto& item : expected.at("cases")) {
    const auto text = item.at("text").get<std::string>();
    const auto encoding = tokenizer->encode(text);
    EXPECT_EQ(encoding.ids, item.at("ids").get<std::vector<int64_t>>()) << "text: " << text;
    EXPECT_EQ(encoding.tokens, item.at("tokens").get<std::vector<std::string>>()) << "text: " << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, WordPieceJson, ::testing::Values("wordpiece", "wordpiece_cased"));

// A copy of the uncased file with one part changed: the message names the file and the feature.
template <typename Change>
std::string changed_error(Change change) {
  test::TempDir dir;
  auto json = read_json(kFixtures + "wordpiece.tokenizer.json");
  change(json);
  const auto path = dir.file("tokenizer.json");
  test::write_file(path, json.dump());
  return error_of([&] { load_hf_tokenizer(path); }).substr(path.size() + 2);
}

TEST(WordPieceJsonRefused, WhatIsNotReadIsNamed) {
  const std::string bert = " is not supported with a WordPiece model (BERT's: BertNormalizer, BertPreTokenizer, a [CLS] … "
                           "[SEP] template)";
  EXPECT_EQ(changed_error([](auto& j) { j["normalizer"] = {{"type", "NFKC"}}; }), "the normalizer NFKC" + bert);
  EXPECT_EQ(changed_error([](auto& j) { j["pre_tokenizer"] = {{"type", "Whitespace"}}; }), "the pre_tokenizer Whitespace" + bert);
  EXPECT_EQ(changed_error([](auto& j) { j["post_processor"] = {{"type", "RobertaProcessing"}}; }),
            "the post_processor RobertaProcessing" + bert);
  EXPECT_EQ(changed_error([](auto& j) { j["model"]["vocab"]["the"] = 100000; }),
            "model.vocab gives 'the' the id 100000 (ids must be 0 … " +
                std::to_string(read_json(kFixtures + "wordpiece.tokenizer.json")["model"]["vocab"].size() - 1) +
                ", each once)");
  EXPECT_EQ(changed_error([](auto& j) { j["added_tokens"][2]["id"] = 7; }), "the added token '[CLS]''s id 7 is another token's");
}

}  // namespace
}  // namespace aw
