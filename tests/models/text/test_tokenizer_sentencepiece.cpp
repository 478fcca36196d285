// tests/models/text/test_tokenizer_sentencepiece.cpp — SentencePiece tokenizers
// (models/text/tokenizer_sentencepiece.cpp): models trained here on text written here, pieces worked out by
// hand for a model small enough to reason about, Marian's vocab.json ids, decode, round trips, and the
// exact error for each kind of bad file or training request.
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::file_bytes;

using Ids = std::vector<int64_t>;
using Texts = std::vector<std::string>;

const std::string kWordStart = "\xE2\x96\x81";  // "▁"

// ---------------------------------------------------------------------------------------------
// A BPE model small enough to work out by hand.
//
// Ten copies of "ab b b" are the words ▁ab ▁b ▁b: the pairs (▁ b) ×20, (▁ a) ×10, (a b) ×10.
// A vocabulary of 8 is the 4 special pieces, the 3 characters ▁ a b, and one merge: the most
// frequent pair, "▁b". So "ab b ba" is ▁ a b | ▁b | ▁b a.

class TinyBpeModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    train_sentencepiece(std::vector<std::string>(10, "ab b b"), dir_->file("tiny"), 8, "bpe", 1);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model() { return dir_->file("tiny.model"); }

  static test::TempDir* dir_;
};

test::TempDir* TinyBpeModel::dir_ = nullptr;

TEST_F(TinyBpeModel, TrainingWritesModelAndVocabulary) {
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_->file("tiny.model")));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_->file("tiny.vocab")));
}

TEST_F(TinyBpeModel, SpecialPiecesTakeTheFirstFourIds) {
  const auto tokenizer = load_sentencepiece_tokenizer(model(), "", false);
  EXPECT_EQ(tokenizer->vocab_size(), 8);
  EXPECT_EQ(tokenizer->token_text(0), "<pad>");
  EXPECT_EQ(tokenizer->token_text(1), "<unk>");
  EXPECT_EQ(tokenizer->token_text(2), "<s>");
  EXPECT_EQ(tokenizer->token_text(3), "</s>");
  EXPECT_EQ(tokenizer->token_text(4), kWordStart + "b");  // the one merge comes first
  EXPECT_EQ(tokenizer->kind(), "sentencepiece");
}

TEST_F(TinyBpeModel, PiecesAreTheHandCheckedOnes) {
  const auto tokenizer = load_sentencepiece_tokenizer(model(), "", false);
  const Encoding encoding = tokenizer->encode("ab b ba");
  const Texts pieces = {kWordStart, "a", "b", kWordStart + "b", kWordStart + "b", "a"};
  EXPECT_EQ(encoding.tokens, pieces);
  ASSERT_EQ(encoding.ids.size(), pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) EXPECT_EQ(encoding.ids[i], tokenizer->token_id(pieces[i])) << pieces[i];
  EXPECT_EQ(encoding.type_ids, Ids(pieces.size(), 0));
}

TEST_F(TinyBpeModel, EosIsAppendedOnlyWhenAsked) {
  const auto plain = load_sentencepiece_tokenizer(model(), "", false);
  const auto with_eos = load_sentencepiece_tokenizer(model(), "", true);
  Ids expected = plain->encode("b a").ids;
  expected.push_back(3);
  EXPECT_EQ(with_eos->encode("b a").ids, expected);
  EXPECT_EQ(with_eos->encode("b a").tokens.back(), "</s>");
  EXPECT_EQ(with_eos->encode("").ids, (Ids{3}));
  EXPECT_TRUE(plain->encode("").ids.empty());
}

TEST_F(TinyBpeModel, CharactersOutsideTheModelAreUnk) {
  const auto tokenizer = load_sentencepiece_tokenizer(model(), "", false);
  const Encoding encoding = tokenizer->encode("b z");
  EXPECT_EQ(encoding.tokens, (Texts{kWordStart + "b", kWordStart, "<unk>"}));
  EXPECT_EQ(encoding.ids.back(), 1);
}

TEST_F(TinyBpeModel, DecodeSkipsSpecialPiecesAndUnk) {
  const auto tokenizer = load_sentencepiece_tokenizer(model(), "", true);
  const Ids ids = tokenizer->encode("ab b ba").ids;  // ends with </s>
  EXPECT_EQ(tokenizer->decode(ids), "ab b ba");
  Ids padded = {2};  // <s>
  padded.insert(padded.end(), ids.begin(), ids.end());
  padded.insert(padded.end(), {0, 0, 1});  // <pad> <pad> <unk>
  EXPECT_EQ(tokenizer->decode(padded), "ab b ba");
  EXPECT_EQ(tokenizer->decode({}), "");
  EXPECT_EQ(error_of([&] { tokenizer->decode({4, 8}); }), "token id 8 is outside the vocabulary (0..7)");
}

TEST_F(TinyBpeModel, TrainingIsDeterministic) {
  // The .model file also records its own prefix, so the pieces and scores of .vocab are compared.
  train_sentencepiece(std::vector<std::string>(10, "ab b b"), dir_->file("again"), 8, "bpe", 1);
  const std::string vocab = file_bytes(dir_->file("tiny.vocab"));
  EXPECT_FALSE(vocab.empty());
  EXPECT_TRUE(file_bytes(dir_->file("again.vocab")) == vocab) << "the same sentences and seed gave other pieces";
}

// ---------------------------------------------------------------------------------------------
// Marian: ids from vocab.json, shared by the source and target models.

TEST_F(TinyBpeModel, VocabJsonRenumbersPiecesAndMapsMissingOnesToItsUnk) {
  // "▁" is missing, so it becomes vocab.json's <unk> (1); the model's own ids do not matter.
  nlohmann::json vocab = {{"</s>", 0}, {"<unk>", 1}, {kWordStart + "b", 2}, {"a", 3}, {"b", 4}, {"<pad>", 5},
                          {">>fra<<", 6}};
  test::write_file(dir_->file("vocab.json"), vocab.dump());
  const auto tokenizer = load_sentencepiece_tokenizer(model(), dir_->file("vocab.json"), true);
  const Encoding encoding = tokenizer->encode("ab b ba");
  EXPECT_EQ(encoding.ids, (Ids{1, 3, 4, 2, 2, 3, 0}));
  EXPECT_EQ(encoding.tokens, (Texts{"<unk>", "a", "b", kWordStart + "b", kWordStart + "b", "a", "</s>"}));
  EXPECT_EQ(tokenizer->vocab_size(), 7);
  EXPECT_EQ(tokenizer->token_id(kWordStart), -1);
  EXPECT_EQ(tokenizer->token_text(2), kWordStart + "b");
  // A leading target-language code is one token, as in Hugging Face's MarianTokenizer.
  EXPECT_EQ(tokenizer->encode(">>fra<< b").ids, (Ids{6, 2, 0}));
  // decode drops </s>, <pad> and <unk>.
  EXPECT_EQ(tokenizer->decode({2, 3, 0, 5, 1, 4}), "bab");
}

TEST_F(TinyBpeModel, BadVocabJsonNamesTheFile) {
  const std::string vocab = dir_->file("bad_vocab.json");
  const auto load = [&](bool append_eos) {
    return [&, append_eos] { load_sentencepiece_tokenizer(model(), vocab, append_eos); };
  };
  EXPECT_EQ(error_of(load(false)), vocab + ": cannot be read (missing or not a file)");
  test::write_file(vocab, "{\"a\": 0,");
  EXPECT_EQ(error_of(load(false)).rfind(vocab + ": is not valid JSON (", 0), 0u) << error_of(load(false));
  test::write_file(vocab, "[\"a\", \"b\"]");
  EXPECT_EQ(error_of(load(false)), vocab + ": is not a JSON object of piece → id (found array)");
  test::write_file(vocab, "{}");
  EXPECT_EQ(error_of(load(false)), vocab + ": holds no pieces (empty object)");
  test::write_file(vocab, R"({"<unk>": 0, "a": "1"})");
  EXPECT_EQ(error_of(load(false)), vocab + ": piece 'a' has id \"1\", not an integer");
  test::write_file(vocab, R"({"<unk>": 0, "a": 2})");
  EXPECT_EQ(error_of(load(false)),
            vocab + ": piece 'a' has id 2, outside 0..1 (ids must number the 2 pieces without gaps)");
  test::write_file(vocab, R"({"<unk>": 0, "a": 0})");
  EXPECT_EQ(error_of(load(false)), vocab + ": id 0 is given to both '<unk>' and 'a'");
  test::write_file(vocab, R"({"a": 0, "</s>": 1})");
  EXPECT_EQ(error_of(load(false)), vocab + ": has no '<unk>' piece");
  test::write_file(vocab, R"({"a": 0, "<unk>": 1})");
  EXPECT_EQ(error_of(load(false)), "");
  EXPECT_EQ(error_of(load(true)), vocab + ": has no '</s>' piece, which every encoding ends with");
}

// ---------------------------------------------------------------------------------------------
// Bad model files and bad training requests.

TEST(SentencePieceFiles, MissingModelNamesTheFile) {
  test::TempDir dir;
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(dir.file("source.spm"), "", true); }),
            dir.file("source.spm") + ": cannot be read (missing or not a file)");
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(dir.path(), "", true); }),
            dir.path() + ": cannot be read (missing or not a file)");
}

TEST(SentencePieceFiles, CorruptModelNamesTheFile) {
  test::TempDir dir;
  std::mt19937 engine(5);
  std::string bytes;
  for (int i = 0; i < 512; ++i) bytes += static_cast<char>(engine() & 0xFF);
  test::write_file(dir.file("source.spm"), bytes);
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(dir.file("source.spm"), "", false); }),
            dir.file("source.spm") + ": is not a SentencePiece model (it does not parse as one)");
  test::write_file(dir.file("empty.spm"), "");
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(dir.file("empty.spm"), "", false); }).rfind(
                dir.file("empty.spm") + ": is not a SentencePiece model (", 0),
            0u);
}

// Found by fuzz/fuzz_sentencepiece.cpp: a model holding an empty piece made the library's bundled
// darts-clone throw its own exception type, which escaped the module as no aw::Error.
TEST(SentencePieceFiles, ModelWithAnEmptyPieceIsRefused) {
  const std::string model = std::string(AW_SOURCE_DIR) + "/tests/fixtures/fuzz/spm_empty_piece.model";
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(model, "", false); }),
            model + ": is not a SentencePiece model (failed to insert key: zero-length key)");
}

// Found by fuzz/fuzz_sentencepiece.cpp (30-minute run): a model defining a piece with control characters
// ("▁", backspace, newline, \x01, "0") twice made the library's message quote the piece, newline and
// all, and the error took two lines.
TEST(SentencePieceFiles, ALibraryMessageQuotingAPieceStaysOneLine) {
  const std::string model = std::string(AW_SOURCE_DIR) + "/tests/fixtures/fuzz/spm_duplicate_piece_with_newline.model";
  EXPECT_EQ(error_of([&] { load_sentencepiece_tokenizer(model, "", false); }),
            model + ": is not a SentencePiece model (▁\\x08\\n\\x010 is already defined.)");
}

TEST(SentencePieceTraining, BadRequestsAreRefused) {
  test::TempDir dir;
  const std::string prefix = dir.file("m");
  const std::vector<std::string> sentences(10, "ab b b");
  EXPECT_EQ(error_of([&] { train_sentencepiece(sentences, prefix, 8, "word", 1); }),
            "SentencePiece model type must be bpe or unigram, got 'word'");
  EXPECT_EQ(error_of([&] { train_sentencepiece(sentences, prefix, 4, "bpe", 1); }),
            "SentencePiece vocabulary size must be at least 5, got 4");
  EXPECT_EQ(error_of([&] { train_sentencepiece({}, prefix, 8, "bpe", 1); }),
            prefix + ".model: cannot be trained on no sentences");
  EXPECT_EQ(error_of([&] { train_sentencepiece({"ab", "\xC3("}, prefix, 8, "bpe", 1); }),
            prefix + ".model: training sentence 2: text is not valid UTF-8 (byte offset 0)");
  // The library's own refusal, without its source location.
  const std::string too_large = error_of([&] { train_sentencepiece(sentences, prefix, 500, "unigram", 1); });
  EXPECT_EQ(too_large.rfind(prefix + ".model: SentencePiece training failed: Vocabulary size too high (500).", 0), 0u)
      << too_large;
}

// ---------------------------------------------------------------------------------------------
// Round trips on real sentences: our own text, and Tatoeba's English–French pairs when present.

const std::vector<std::string> kOwnText = {
    "The workbench shows what every attention head looks at.",
    "A translation model reads the source sentence and writes the target one word piece at a time.",
    "Short sentences are easy; longer ones, with commas and numbers like 42 or 1999, are harder.",
    "Each head of the decoder looks back at the encoder through cross attention.",
    "We trained a small model on a few thousand pairs and looked at its heads.",
    "Subword pieces let the model spell words it has never seen, such as workbenches.",
    "The quick brown fox jumps over the lazy dog.",
    "Pack my box with five dozen liquor jugs!",
    "How vexingly quick daft zebras jump?",
    "Sphinx of black quartz, judge my vow.",
};

TEST(SentencePieceTraining, BpeAndUnigramRoundTripOwnText) {
  test::TempDir dir;
  for (const std::string type : {"bpe", "unigram"}) {
    train_sentencepiece(kOwnText, dir.file(type), 120, type, 7);
    const auto tokenizer = load_sentencepiece_tokenizer(dir.file(type + ".model"), "", true);
    EXPECT_EQ(tokenizer->vocab_size(), 120) << type;
    for (const auto& sentence : kOwnText) {
      const Encoding encoding = tokenizer->encode(sentence);
      EXPECT_EQ(encoding.ids.back(), 3) << type;
      EXPECT_EQ(tokenizer->decode(encoding.ids), sentence) << type;
      for (const int64_t id : encoding.ids) EXPECT_NE(id, 1) << type << ": <unk> in '" << sentence << "'";
    }
  }
}

TEST(SentencePieceTraining, UnigramTrainingIsDeterministic) {
  test::TempDir dir;
  train_sentencepiece(kOwnText, dir.file("first"), 120, "unigram", 5);
  train_sentencepiece(kOwnText, dir.file("second"), 120, "unigram", 5);
  EXPECT_TRUE(file_bytes(dir.file("first.vocab")) == file_bytes(dir.file("second.vocab")));
}

// Printable ASCII with single spaces inside: what the library's normalisation leaves as it is.
bool survives_normalisation(const std::string& text) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ' || text.find("  ") != std::string::npos) return false;
  for (const char c : text)
    if (c < 0x20 || c > 0x7E) return false;
  return true;
}

TEST(SentencePieceTraining, UnigramRoundTripsTatoebaEnglish) {
  const std::string path = AW_SHARED_DATA_DIR "/tatoeba-eng-fra/eng-fra.tsv";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << path << " is not there";
  std::vector<std::string> sentences, english;
  for (std::string line; sentences.size() < 4000 && std::getline(in, line);) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    english.push_back(line.substr(0, tab));
    sentences.push_back(english.back());
    sentences.push_back(line.substr(tab + 1));
  }
  test::TempDir dir;
  train_sentencepiece(sentences, dir.file("eng_fra"), 800, "unigram", 3);
  const auto tokenizer = load_sentencepiece_tokenizer(dir.file("eng_fra.model"), "", true);
  size_t checked = 0;
  for (const auto& sentence : english) {
    if (!survives_normalisation(sentence)) continue;
    EXPECT_EQ(tokenizer->decode(tokenizer->encode(sentence).ids), sentence);
    ++checked;
  }
  EXPECT_GT(checked, 1000u);
}

}  // namespace
}  // namespace aw
