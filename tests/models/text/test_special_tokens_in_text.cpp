// tests/models/text/test_special_tokens_in_text.cpp — special tokens written in a text are one token each,
// as transformers 5 reads them, for the tokenizers of the translation fixtures: BART's byte-level BPE
// (its vocab.json and merges.txt: <s>, </s>, <unk>, <pad>, <mask>) and Marian's SentencePiece pair
// (</s>, <unk>, <pad>). The expected ids are what AutoTokenizer gave for these fixtures with
// add_special_tokens=False (transformers 5.24.0, tokenizers 0.23.3, sentencepiece 0.2.3).
#include "models/checkpoint/checkpoint.h"
#include "models/text/special_tokens.h"
#include "tests/support/hf_translation_fixtures.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using Ids = std::vector<int64_t>;
using test::hf_translation::fixture_dir;

TEST(SpecialTokensInText, BartReadsEachAsOneToken) {
  const auto bart = load_checkpoint(fixture_dir("bart_tiny"));
  const auto& tokenizer = *bart.tokenizer;
  EXPECT_EQ(tokenizer.encode("The <unk> sat on the mat").ids, (Ids{55, 262, 224, 3, 267, 68, 87, 224, 273, 286, 269, 68, 87}));
  EXPECT_EQ(tokenizer.encode("a<unk>b <mask> c </s>").ids, (Ids{68, 3, 69, 224, 299, 280, 224, 2}));
  EXPECT_EQ(tokenizer.encode("word <unk>").ids, (Ids{90, 281, 71, 224, 3}));
}

TEST(SpecialTokensInText, MarianReadsEachAsOneTokenAndTheTextBetweenOnItsOwn) {
  const auto marian = load_checkpoint(fixture_dir("marian_tiny"));
  const auto& tokenizer = *marian.tokenizer;
  EXPECT_EQ(tokenizer.encode("The <unk> sat on the mat").ids, (Ids{55, 1, 2, 6, 7, 3, 2, 37, 26, 56, 3}));
  EXPECT_EQ(tokenizer.encode("a<unk>b </s> c").ids, (Ids{16, 1, 44, 0, 2, 14}));
  EXPECT_EQ(tokenizer.encode("word <unk>").ids, (Ids{24, 54, 10, 1}));
  EXPECT_EQ(tokenizer.encode("<unk> start").ids, (Ids{1, 59, 62, 3}));
  EXPECT_EQ(tokenizer.encode("x <pad> y").ids, (Ids{2, 89, 181, 2, 19}));
  set_special_tokens_in_text(false);  // --special-tokens-as-text: "<unk>" is pieces of text again
  const auto as_text = tokenizer.encode("word <unk>").ids;
  set_special_tokens_in_text(true);
  EXPECT_GT(as_text.size(), 4u);  // "<", "unk", ">" pieces (or unknown ones) after "word"
}

}  // namespace
}  // namespace aw
