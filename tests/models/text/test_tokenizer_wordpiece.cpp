// tests/models/text/test_tokenizer_wordpiece.cpp — BERT WordPiece (models/text/tokenizer_wordpiece.cpp):
// ids worked out by hand on hard strings (accents, CJK, emoji, long words, special tokens in the text;
// checked against transformers 5's BertTokenizer on the same vocabulary), no decode, and the exact error
// for each kind of bad vocab.txt.
#include "models/errors.h"
#include "models/text/special_tokens.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

using Ids = std::vector<int64_t>;
using Texts = std::vector<std::string>;

const Texts kWordPieceVocab = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",                // 0..4
    "the",   "cat",   "##s",   "un",    "##aff",   "##able",    // 5..10
    ",",     "!",     "'",     "t",     "don",     "cafe",      // 11..16
    "日",    "本",    "hello", "world", "a",       "##a",       // 17..22
    "$",     "5",     "café",  "Hello", "##é",     "是",        // 23..28
};

class WordPieceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    for (const auto& token : kWordPieceVocab) text += token + "\n";
    test::write_file(dir_.file("vocab.txt"), text);
    uncased_ = load_wordpiece_tokenizer(dir_.file("vocab.txt"), true);
    cased_ = load_wordpiece_tokenizer(dir_.file("vocab.txt"), false);
  }

  Ids uncased(const std::string& text) const { return uncased_->encode(text).ids; }
  Ids cased(const std::string& text) const { return cased_->encode(text).ids; }

  test::TempDir dir_;
  std::unique_ptr<Tokenizer> uncased_, cased_;
};

TEST_F(WordPieceTest, WrapsInClsAndSep) {
  EXPECT_EQ(uncased(""), (Ids{2, 3}));
  EXPECT_EQ(uncased("   \t\n "), (Ids{2, 3}));
  const Encoding encoding = uncased_->encode("Hello, World!");
  EXPECT_EQ(encoding.ids, (Ids{2, 19, 11, 20, 12, 3}));
  EXPECT_EQ(encoding.tokens, (Texts{"[CLS]", "hello", ",", "world", "!", "[SEP]"}));
  EXPECT_EQ(encoding.type_ids, (Ids{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(uncased_->kind(), "wordpiece");
}

TEST_F(WordPieceTest, PairsGetTypeIdsZeroThenOne) {
  const Encoding encoding = uncased_->encode_pair("the cat", "cats!");
  EXPECT_EQ(encoding.ids, (Ids{2, 5, 6, 3, 6, 7, 12, 3}));
  EXPECT_EQ(encoding.type_ids, (Ids{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST_F(WordPieceTest, GreedyLongestMatchWithContinuations) {
  EXPECT_EQ(uncased("unaffable cats"), (Ids{2, 8, 9, 10, 6, 7, 3}));
  // A word with a piece that cannot be matched is one [UNK], not a partial match.
  EXPECT_EQ(uncased("unaffablex"), (Ids{2, 1, 3}));
  EXPECT_EQ(uncased("dog"), (Ids{2, 1, 3}));
}

TEST_F(WordPieceTest, ContractionsAndAsciiSymbolsSplitAsPunctuation) {
  EXPECT_EQ(uncased("don't"), (Ids{2, 15, 13, 14, 3}));
  EXPECT_EQ(uncased("$5"), (Ids{2, 23, 24, 3}));  // "$" is punctuation for BERT although Unicode says Sc
}

TEST_F(WordPieceTest, LowercasingStripsAccentsCasedKeepsThem) {
  EXPECT_EQ(uncased("CAFÉ"), (Ids{2, 16, 3}));
  EXPECT_EQ(uncased("Cafe\xCC\x81"), (Ids{2, 16, 3}));  // e + combining acute (NFD input)
  EXPECT_EQ(cased("café"), (Ids{2, 25, 3}));
  // Not composed (transformers 5's BertTokenizer, checked with 5.24.0): e + combining acute is no
  // piece of a cased vocabulary, so the word is unknown; uncased, the accent is stripped.
  EXPECT_EQ(cased("cafe\xCC\x81"), (Ids{2, 1, 3}));
  EXPECT_EQ(cased("Hello"), (Ids{2, 26, 3}));
  EXPECT_EQ(cased("CAFÉ"), (Ids{2, 1, 3}));
}

// Special tokens written in the text are one token each, inside words too (as transformers 5 reads
// them: "the [SEP] cat" → [CLS] the [SEP] cat [SEP]).
TEST_F(WordPieceTest, SpecialTokensInTheTextAreOneTokenEach) {
  EXPECT_EQ(uncased("the [SEP] cat"), (Ids{2, 5, 3, 6, 3}));
  EXPECT_EQ(uncased("the[MASK]cat"), (Ids{2, 5, 4, 6, 3}));
  EXPECT_EQ(cased("[CLS]Hello[PAD]"), (Ids{2, 2, 26, 0, 3}));
  EXPECT_EQ(uncased("[sep]"), (Ids{2, 1, 1, 1, 3}));  // another spelling is text: "[", "sep", "]", none in the vocabulary
}

// --special-tokens-as-text: the spelling is text again ("[", "sep", "]", none in this vocabulary).
TEST_F(WordPieceTest, SpecialTokensAsTextAreReadAsText) {
  set_special_tokens_in_text(false);
  const auto ids = uncased("the [SEP] cat");
  set_special_tokens_in_text(true);
  EXPECT_EQ(ids, (Ids{2, 5, 1, 1, 1, 6, 3}));
}

TEST_F(WordPieceTest, CjkIdeographsAreSingleWords) {
  // 日本語是: each ideograph becomes its own word; 語 is not in the vocabulary.
  EXPECT_EQ(uncased("日本語是"), (Ids{2, 17, 18, 1, 28, 3}));
  EXPECT_EQ(uncased("the日本"), (Ids{2, 5, 17, 18, 3}));
}

TEST_F(WordPieceTest, EmojiControlAndUnusualSpaces) {
  EXPECT_EQ(uncased("👋"), (Ids{2, 1, 3}));          // a symbol, not punctuation: one unknown word
  EXPECT_EQ(uncased("the\x01" "cat"), (Ids{2, 1, 3}));  // control character dropped: "thecat"
  EXPECT_EQ(uncased("the\xC2\xA0" "cat"), (Ids{2, 5, 6, 3}));      // no-break space separates
  EXPECT_EQ(uncased("the\xE2\x80\xA8" "cat"), (Ids{2, 5, 6, 3}));  // line separator separates
  EXPECT_EQ(uncased("the\xE2\x80\x8B" "cat"), (Ids{2, 1, 3}));     // zero-width space (Cf) dropped
}

TEST_F(WordPieceTest, WordsOverOneHundredCharactersAreUnknown) {
  const Ids hundred = uncased(std::string(100, 'a'));
  ASSERT_EQ(hundred.size(), 102u);
  EXPECT_EQ(hundred[1], 21);
  EXPECT_EQ(hundred[100], 22);
  EXPECT_EQ(uncased(std::string(101, 'a')), (Ids{2, 1, 3}));
}

TEST(WordPieceFiles, BadFilesNameTheFileAndTheProblem) {
  test::TempDir dir;
  const std::string vocab = dir.file("vocab.txt");
  const auto load = [&] { load_wordpiece_tokenizer(vocab, true); };
  EXPECT_EQ(error_of(load), vocab + ": cannot be read (missing or not a file)");
  test::write_file(vocab, "");
  EXPECT_EQ(error_of(load), vocab + ": holds no tokens (empty file)");
  test::write_file(vocab, "[CLS]\n[SEP]\nthe\n");
  EXPECT_EQ(error_of(load), vocab + ": has no '[UNK]' token (BERT needs [CLS], [SEP] and [UNK])");
  test::write_file(vocab, "[CLS]\n\nthe\n");
  EXPECT_EQ(error_of(load), vocab + ": line 2: empty token");
  test::write_file(vocab, "[CLS]\nthe\nthe\n");
  EXPECT_EQ(error_of(load), vocab + ": line 3: duplicate token 'the' (also on line 2)");
  test::write_file(vocab, "[CLS]\nthe\x01\nthe\x01\n");
  EXPECT_EQ(error_of(load), vocab + ": line 3: duplicate token 'the\\x01' (also on line 2)");
  test::write_file(vocab, "[CLS]\n" + std::string(kMaxLineBytes + 1, 'a') + "\n");
  EXPECT_EQ(error_of(load), vocab + ": line 2 is 1048577 bytes long, more than the 1 MiB one line may hold");
  // Windows line ends are accepted.
  test::write_file(vocab, "[CLS]\r\n[SEP]\r\n[UNK]\r\nthe\r\n");
  EXPECT_EQ(load_wordpiece_tokenizer(vocab, true)->encode("The").ids, (Ids{0, 3, 1}));
}

TEST(WordPieceDecode, IsNotOffered) {
  test::TempDir dir;
  test::write_file(dir.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n");
  const auto tokenizer = load_wordpiece_tokenizer(dir.file("vocab.txt"), true);
  EXPECT_EQ(error_of([&] { tokenizer->decode({4}); }), "wordpiece tokenizer cannot decode");
}

}  // namespace
}  // namespace aw
