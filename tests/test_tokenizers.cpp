// tests/test_tokenizers.cpp — the three tokenizer families on hard strings, with ids worked out by
// hand from small vocabularies written here, and the exact error for each kind of bad file.
//
// The GPT-2 byte vocabulary is laid out as GPT-2's own vocab.json: the printable bytes 33..126,
// 161..172, 174..255 take ids 0..187 in byte order, the other 68 bytes ids 188..255 (so "!" = 0,
// "a" = 64, "Ġ" (space) = 220, "Ċ" (newline) = 198 — the same ids as the real GPT-2 vocabulary).
#include "models/errors.h"
#include "models/text/corpus.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

using Ids = std::vector<int64_t>;
using Texts = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// GPT-2 byte-level BPE

// The code point GPT-2 writes for a byte (bytes_to_unicode), worked out independently of the
// tokenizer: printable bytes stand for themselves, the others take 256, 257, … in byte order.
std::string byte_spelling(int byte) {
  const auto printable = [](int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174; };
  int code_point = byte;
  if (!printable(byte)) {
    code_point = 256;
    for (int b = 0; b < byte; ++b)
      if (!printable(b)) ++code_point;
  }
  return test::utf8(static_cast<uint32_t>(code_point));
}

// Merges of the test vocabulary, in rank order; merged tokens take ids 256, 257, … in this order.
const std::vector<std::pair<std::string, std::string>> kMerges = {
    {"Ġ", "t"},    // 256 Ġt
    {"h", "e"},    // 257 he
    {"Ġt", "he"},  // 258 Ġthe
    {"t", "he"},   // 259 the
    {"'", "s"},    // 260 's
    {"Ġ", "c"},    // 261 Ġc
    {"a", "t"},    // 262 at
    {"Ġc", "at"},  // 263 Ġcat
    {"c", "a"},    // 264 ca   (ranked after "a t": "cat" must become c + at)
    {"Ġ", "b"},    // 265 Ġb
    {"æ", "Ĺ"},    // 266 æĹ   (first two bytes of 日, E6 97)
    {"æĹ", "¥"},   // 267 æĹ¥  (日)
    {"'", "ll"},   // 268 'll
    {"l", "l"},    // 269 ll   (ranked after "' ll", which cannot apply before "l l")
};

class Gpt2TokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nlohmann::json vocab = nlohmann::json::object();
    int64_t id = 0;
    for (int byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
      if (printable) vocab[byte_spelling(byte)] = id++;
    }
    for (int byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
      if (!printable) vocab[byte_spelling(byte)] = id++;
    }
    std::string merges = "#version: 0.2\n";
    for (const auto& [left, right] : kMerges) {
      vocab[left + right] = id++;
      merges += left + " " + right + "\n";
    }
    test::write_file(dir_.file("vocab.json"), vocab.dump());
    test::write_file(dir_.file("merges.txt"), merges);
    tokenizer_ = load_gpt2_tokenizer(dir_.file("vocab.json"), dir_.file("merges.txt"));
  }

  Ids ids(const std::string& text) const { return tokenizer_->encode(text).ids; }

  test::TempDir dir_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_F(Gpt2TokenizerTest, ByteIdsFollowGpt2Layout) {
  EXPECT_EQ(tokenizer_->vocab_size(), 256 + static_cast<int64_t>(kMerges.size()));
  EXPECT_EQ(tokenizer_->token_id("!"), 0);
  EXPECT_EQ(tokenizer_->token_id("a"), 64);
  EXPECT_EQ(tokenizer_->token_id("Ġ"), 220);
  EXPECT_EQ(tokenizer_->token_id("Ċ"), 198);
  EXPECT_EQ(tokenizer_->kind(), "gpt2_bpe");
}

TEST_F(Gpt2TokenizerTest, MergesApplyInRankOrder) {
  // "the": t h e → t he (rank 2) → the (rank 4).
  EXPECT_EQ(ids("the"), (Ids{259}));
  // " the cat": pieces " the", " cat".
  EXPECT_EQ(ids(" the cat"), (Ids{258, 263}));
  // "cat": "a t" (rank 7) outranks "c a" (rank 9), and "c at" is no merge.
  EXPECT_EQ(ids("cat"), (Ids{'c' - 33, 262}));
  // "all": "' ll" cannot apply, "l l" does.
  EXPECT_EQ(ids("all"), (Ids{64, 269}));
}

TEST_F(Gpt2TokenizerTest, ContractionsAreTheirOwnPieces) {
  // "the cat's" → "the", " cat", "'s".
  EXPECT_EQ(ids("the cat's"), (Ids{259, 263, 260}));
  // "I'll" → "I", "'ll"; inside "'ll" only "l l" applies first ("' l" is no merge), then "' ll".
  EXPECT_EQ(ids("I'll"), (Ids{'I' - 33, 268}));
  // Contractions are matched case-sensitively: "'S" is punctuation then a letter.
  EXPECT_EQ(ids("cat'S"), (Ids{'c' - 33, 262, '\'' - 33, 'S' - 33}));
}

TEST_F(Gpt2TokenizerTest, RunsOfSpacesLeaveOneSpaceForTheNextWord) {
  // "a   b" → "a", "  ", " b": the last space of a run joins the following word.
  EXPECT_EQ(ids("a   b"), (Ids{64, 220, 220, 265}));
  // Trailing spaces stay one piece; a newline is byte 10 (Ċ = 198).
  EXPECT_EQ(ids("a  "), (Ids{64, 220, 220}));
  EXPECT_EQ(ids("a\n b"), (Ids{64, 198, 265}));
  // Leading space before a number and punctuation belongs to them.
  EXPECT_EQ(ids(" 42!"), (Ids{220, '4' - 33, '2' - 33, 0}));
}

TEST_F(Gpt2TokenizerTest, AccentsCjkAndEmojiAreBytes) {
  // "é" is C3 A9: ids 106 + (0xC3 − 174) = 127 and 94 + (0xA9 − 161) = 102.
  EXPECT_EQ(ids("é"), (Ids{127, 102}));
  // "日本": one letter piece; 日 = E6 97 A5 merges to id 267, 本 = E6 9C AC stays bytes:
  // E6 → 162, 9C → 188 + 33 + (0x9C − 127) = 250, AC → 94 + 11 = 105.
  EXPECT_EQ(ids("日本"), (Ids{267, 162, 250, 105}));
  // " 👋" = 20 F0 9F 91 8B, one punctuation-like piece: 220, 172, 253, 239, 233.
  EXPECT_EQ(ids(" 👋"), (Ids{220, 172, 253, 239, 233}));
}

TEST_F(Gpt2TokenizerTest, TokenTextIsReadable) {
  const Encoding encoding = tokenizer_->encode(" the 日本 👋");
  EXPECT_EQ(encoding.tokens[0], " the");
  EXPECT_EQ(tokenizer_->token_text(267), "日");
  EXPECT_EQ(tokenizer_->token_text(172), "\\xF0");  // a lone lead byte is shown escaped
  EXPECT_EQ(encoding.tokens.size(), encoding.ids.size());
  EXPECT_EQ(encoding.type_ids, Ids(encoding.ids.size(), 0));
}

TEST_F(Gpt2TokenizerTest, EmptyTextAndNoSpecialTokens) {
  EXPECT_TRUE(ids("").empty());
  // "<|endoftext|>" is ordinary text here: "<|" then "endoftext" then "|>".
  EXPECT_EQ(ids("<|endoftext|>").size(), 2u + 9u + 2u);
  EXPECT_EQ(error_of([&] { tokenizer_->encode_pair("a", "b"); }), "gpt2_bpe tokenizer does not encode sentence pairs");
}

TEST_F(Gpt2TokenizerTest, InvalidUtf8IsRejected) {
  EXPECT_EQ(error_of([&] { ids(std::string("ab\xC3", 3)); }), "text is not valid UTF-8 (byte offset 2)");
  EXPECT_EQ(error_of([&] { ids("\xED\xA0\x80"); }), "text is not valid UTF-8 (byte offset 0)");  // a surrogate
  EXPECT_EQ(error_of([&] { tokenizer_->token_text(999); }), "token id 999 is outside the vocabulary (0..269)");
}

// A corpus file that is not UTF-8: the error names the file (one line, for the CLI and the window).
TEST_F(Gpt2TokenizerTest, ACorpusThatIsNotUtf8NamesItsFile) {
  test::write_file(dir_.file("latin1.txt"), std::string("caf\xE9 au lait\n"));
  EXPECT_EQ(error_of([&] { read_token_corpus(dir_.file("latin1.txt"), *tokenizer_); }),
            dir_.file("latin1.txt") + ": text is not valid UTF-8 (byte offset 3)");
}

TEST(Gpt2TokenizerFiles, BadFilesNameTheFileAndTheProblem) {
  test::TempDir dir;
  const std::string vocab = dir.file("vocab.json"), merges = dir.file("merges.txt");
  const auto load = [&] { load_gpt2_tokenizer(vocab, merges); };

  EXPECT_EQ(error_of(load), vocab + ": cannot be read (missing or not a file)");
  test::write_file(vocab, "[1, 2]");
  EXPECT_EQ(error_of(load), vocab + ": is not a JSON object of token → id (found array)");
  test::write_file(vocab, R"({"a": 0, "b": 2})");
  EXPECT_EQ(error_of(load), vocab + ": token 'b' has id 2, outside 0..1 (ids must number the 2 tokens without gaps)");
  test::write_file(vocab, R"({"a": 0, "b": "1"})");
  EXPECT_EQ(error_of(load), vocab + ": token 'b' has id \"1\", not an integer");
  test::write_file(vocab, R"({"a": 0, "b": 1, "ab": 2})");
  EXPECT_EQ(error_of(load), merges + ": cannot be read (missing or not a file)");
  test::write_file(merges, "#version: 0.2\na b\na c\n");
  EXPECT_EQ(error_of(load), merges + ": line 3: merge 'a c' uses 'c', which is not in the vocabulary");
  test::write_file(merges, "b a\n");
  EXPECT_EQ(error_of(load), merges + ": line 1: merge 'b a' makes 'ba', which is not in the vocabulary");
  test::write_file(merges, "a b c\n");
  EXPECT_EQ(error_of(load), merges + ": line 1: expected two tokens separated by a space, found 3 ('a b c')");
  test::write_file(merges, "a b\na b\n");
  EXPECT_EQ(error_of(load), merges + ": line 2: merge 'a b' repeats line 1");
  // Text from the file is quoted short and escaped: a hostile line cannot flood or split the message.
  test::write_file(merges, "a b " + std::string(5000, 'x') + "\n");
  EXPECT_EQ(error_of(load), merges + ": line 1: expected two tokens separated by a space, found 3 ('a b " +
                                std::string(96, 'x') + "...')");
  test::write_file(merges, "a b\n" + std::string(kMaxLineBytes + 1, 'a') + "\n");
  EXPECT_EQ(error_of(load), merges + ": line 2 is 1048577 bytes long, more than the 1 MiB one line may hold");
  // A text byte without a vocabulary token.
  test::write_file(merges, "a b\n");
  const auto tokenizer = load_gpt2_tokenizer(vocab, merges);
  EXPECT_EQ(tokenizer->encode("ab").ids, (Ids{2}));
  EXPECT_EQ(error_of([&] { tokenizer->encode("abz"); }), vocab + ": has no token for byte 0x7A (symbol 'z'), which the text needs");
}

// ---------------------------------------------------------------------------------------------
// BERT WordPiece

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
  EXPECT_EQ(cased("cafe\xCC\x81"), (Ids{2, 25, 3}));  // composed to é before lookup
  EXPECT_EQ(cased("Hello"), (Ids{2, 26, 3}));
  EXPECT_EQ(cased("CAFÉ"), (Ids{2, 1, 3}));
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

// ---------------------------------------------------------------------------------------------
// Text from files in messages

TEST(QuotedExcerpt, EscapesControlCharactersAndCutsAtACharacterBoundary) {
  EXPECT_EQ(quoted_excerpt("cat"), "'cat'");
  EXPECT_EQ(quoted_excerpt("a\tb\nc\rd\x01\x7F"), "'a\\tb\\nc\\rd\\x01\\x7f'");
  EXPECT_EQ(quoted_excerpt(std::string(100, 'x')), "'" + std::string(100, 'x') + "'");
  EXPECT_EQ(quoted_excerpt(std::string(101, 'x')), "'" + std::string(100, 'x') + "...'");
  // "é" is 2 bytes: 99 x then é would end at byte 101, so the cut falls before it.
  EXPECT_EQ(quoted_excerpt(std::string(99, 'x') + "é" + "y"), "'" + std::string(99, 'x') + "...'");
  EXPECT_EQ(quoted_excerpt(std::string(98, 'x') + "é" + "y"), "'" + std::string(98, 'x') + "é...'");
}

// ---------------------------------------------------------------------------------------------
// Word level

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

}  // namespace
}  // namespace aw
