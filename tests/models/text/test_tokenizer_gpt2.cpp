// tests/models/text/test_tokenizer_gpt2.cpp — GPT-2 byte-level BPE (models/text/tokenizer_gpt2.cpp): ids
// worked out by hand from a small vocabulary written here on hard strings, decode (multi-byte text,
// ill-formed bytes), and the exact error for each kind of bad file.
//
// The GPT-2 byte vocabulary is laid out as GPT-2's own vocab.json: the printable bytes 33..126, 161..172,
// 174..255 take ids 0..187 in byte order, the other 68 bytes ids 188..255 (so "!" = 0, "a" = 64, "Ġ"
// (space) = 220, "Ċ" (newline) = 198 — the same ids as the real GPT-2 vocabulary).
#include "models/errors.h"
#include "models/text/corpus.h"
#include "models/text/special_tokens.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::error_of;

using Ids = std::vector<int64_t>;

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

// Byte-level BPE encodes the whole text (the ids do not change) and spells every byte, so the
// paragraphs are found again in the tokens: each begins at the first token with text after a blank line.
TEST_F(Gpt2TokenizerTest, ParagraphsAreFoundAgainInTheTokens) {
  const std::string text = "the cat\n\nthe cat\n \n cat the\n";
  test::write_file(dir_.file("text.txt"), text);
  const auto corpus = read_token_paragraphs(dir_.file("text.txt"), *tokenizer_);
  EXPECT_EQ(corpus.ids, ids(text));
  ASSERT_EQ(corpus.paragraph_starts.size(), 3u);
  EXPECT_EQ(corpus.paragraph_starts[0], 0);
  EXPECT_EQ(corpus.ids[corpus.paragraph_starts[1]], 259);  // "the"
  EXPECT_EQ(corpus.ids[corpus.paragraph_starts[2]], 263);  // " cat"
  EXPECT_EQ(corpus.ids[corpus.paragraph_starts[1] - 1], 198);  // after a line break
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

class Gpt2Decode : public ::testing::Test {
 protected:
  // The 256 byte tokens, the merges "Ġ t", "h e", "Ġt he" (ids 256–258), and "<|endoftext|>" (259)
  // and "<s>" (260), which no merge makes.
  void SetUp() override {
    nlohmann::json vocab = nlohmann::json::object();
    int64_t id = 0;
    for (const bool printable_pass : {true, false})
      for (int byte = 0; byte < 256; ++byte) {
        const bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
        if (printable == printable_pass) vocab[byte_spelling(byte)] = id++;
      }
    vocab["Ġt"] = id++;
    vocab["he"] = id++;
    vocab["Ġthe"] = id++;
    vocab["<|endoftext|>"] = id++;
    vocab["<s>"] = id++;
    test::write_file(dir_.file("vocab.json"), vocab.dump());
    test::write_file(dir_.file("merges.txt"), "#version: 0.2\nĠ t\nh e\nĠt he\n");
    tokenizer_ = load_gpt2_tokenizer(dir_.file("vocab.json"), dir_.file("merges.txt"));
  }

  // The id of one byte's token.
  int64_t byte_id(unsigned char byte) const { return tokenizer_->token_id(byte_spelling(byte)); }

  test::TempDir dir_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_F(Gpt2Decode, RoundTripsTextWithMultiByteCharacters) {
  for (const std::string text : {" the cat", "the\ncafé  日本 🙂", "", "  "}) {
    const Ids ids = tokenizer_->encode(text).ids;
    EXPECT_EQ(tokenizer_->decode(ids), text);
  }
  EXPECT_EQ(tokenizer_->encode(" the").ids, (Ids{258}));
}

// "<|endoftext|>" written in the text is one token, as GPT2Tokenizer reads it; the text on either side
// is encoded on its own ("end<|endoftext|>start" in the issue: end, <|endoftext|>, start).
TEST_F(Gpt2Decode, EndOfTextWrittenInTheTextIsOneToken) {
  EXPECT_EQ(tokenizer_->encode("<|endoftext|>").ids, (Ids{259}));
  EXPECT_EQ(tokenizer_->encode(" the<|endoftext|> the").ids, (Ids{258, 259, 258}));
  EXPECT_EQ(tokenizer_->encode("<|endoftext|>").tokens.front(), "<|endoftext|>");
  set_special_tokens_in_text(false);  // --special-tokens-as-text: its bytes, one token each here
  const auto as_text = tokenizer_->encode("<|endoftext|>").ids;
  set_special_tokens_in_text(true);
  EXPECT_EQ(as_text.size(), 13u);
}

TEST_F(Gpt2Decode, SkipsTokensNoMergeMakes) {
  const Ids ids = {260, 258, 259, byte_id('!'), 259};  // <s> " the" <|endoftext|> "!" <|endoftext|>
  EXPECT_EQ(tokenizer_->decode(ids), " the!");
}

TEST_F(Gpt2Decode, IllFormedBytesBecomeOneReplacementEach) {
  const std::string replacement = "\xEF\xBF\xBD";
  // 日 is E6 97 A5: its first two bytes, then "a", is one maximal ill-formed stretch.
  EXPECT_EQ(tokenizer_->decode({byte_id(0xE6), byte_id(0x97), byte_id('a')}), replacement + "a");
  // A lone continuation byte, and a byte that never starts a sequence: one each.
  EXPECT_EQ(tokenizer_->decode({byte_id(0x97), byte_id(0xFF), byte_id('b')}), replacement + replacement + "b");
  // E0 needs A0..BF next: E0 80 is two stretches.
  EXPECT_EQ(tokenizer_->decode({byte_id(0xE0), byte_id(0x80)}), replacement + replacement);
  // A sequence cut at the end.
  EXPECT_EQ(tokenizer_->decode({byte_id('x'), byte_id(0xF0), byte_id(0x9F)}), "x" + replacement);
  EXPECT_EQ(error_of([&] { tokenizer_->decode({-1}); }), "token id -1 is outside the vocabulary (0..260)");
}

}  // namespace
}  // namespace aw
