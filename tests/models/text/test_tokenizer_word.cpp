// tests/models/text/test_tokenizer_word.cpp — word-level tokenizers (models/text/tokenizer_word.cpp):
// whitespace splitting, unknown words, normalised words, decode, and a vocabulary without <unk>.
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

using Ids = std::vector<int64_t>;
using Texts = std::vector<std::string>;

TEST(WordTokenizer, SplitsOnWhitespaceAndMapsUnknownWords) {
  test::TempDir dir;
  test::write_file(dir.file("vocab.txt"), "<unk>\n<eos>\nthe\ncat\n,\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"));
  const Encoding encoding = tokenizer->encode("  the\tcat ,\n\n dog ");
  EXPECT_EQ(encoding.ids, (Ids{2, 3, 4, 0}));
  EXPECT_EQ(encoding.tokens, (Texts{"the", "cat", ",", "<unk>"}));
  EXPECT_TRUE(tokenizer->encode("").ids.empty());
  EXPECT_TRUE(tokenizer->encode(" \n ").ids.empty());
  EXPECT_EQ(tokenizer->encode("The").ids, (Ids{0}));  // case-sensitive
  EXPECT_EQ(tokenizer->vocab_size(), 5);
  EXPECT_EQ(tokenizer->token_id("cat"), 3);
  EXPECT_EQ(tokenizer->token_id("dog"), -1);
  EXPECT_EQ(tokenizer->kind(), "word");
}

TEST(WordTokenizer, VocabularyWithoutUnkIsRejected) {
  test::TempDir dir;
  test::write_file(dir.file("vocab.txt"), "the\ncat\n");
  EXPECT_EQ(error_of([&] { load_word_tokenizer(dir.file("vocab.txt")); }),
            dir.file("vocab.txt") + ": has no '<unk>' token (a word vocabulary needs one)");
}

TEST(WordDecode, JoinsTokensWithSpaces) {
  test::TempDir dir;
  test::write_file(dir.file("vocab.txt"), "<unk>\n<eos>\nthe\ncat\n,\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"));
  EXPECT_EQ(tokenizer->decode(tokenizer->encode("the  cat , dog").ids), "the cat , <unk>");
  EXPECT_EQ(tokenizer->decode({2, 1}), "the <eos>");
  EXPECT_EQ(tokenizer->decode({}), "");
  EXPECT_EQ(error_of([&] { tokenizer->decode({5}); }), "token id 5 is outside the vocabulary (0..4)");
}

TEST(ClassifierData, NormalisedWordsAreLowercaseWithPunctuationSplit) {
  EXPECT_EQ(split_words("Great taffy! Don't re-buy...", true),
            (std::vector<std::string>{"great", "taffy", "!", "don't", "re-buy", ".", ".", "."}));
  EXPECT_EQ(split_words("Great taffy!", false), (std::vector<std::string>{"Great", "taffy!"}));
}

}  // namespace
}  // namespace aw
