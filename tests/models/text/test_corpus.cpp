// tests/models/text/test_corpus.cpp — corpora and labelled files (models/text/corpus.h): label names,
// labels checked against the model's classes, the windows a corpus is cut into and the paragraphs
// they are resampled by.
#include "models/errors.h"
#include "models/text/corpus.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::write_file;

TEST(ClassifierData, LabelNamesAreNumericWhenTheyAreNumbers) {
  TempDir dir;
  write_file(dir.file("a.tsv"), "10\tx\n2\ty\n1\tz\n2\tw\n");
  EXPECT_EQ(read_label_names(dir.file("a.tsv")), (std::vector<std::string>{"1", "2", "10"}));
  write_file(dir.file("b.tsv"), "pos\tx\nneg\ty\n");
  EXPECT_EQ(read_label_names(dir.file("b.tsv")), (std::vector<std::string>{"neg", "pos"}));
  // A numeric label too long for 64 bits: a clear error (it used to be a bare "stoll").
  write_file(dir.file("huge.tsv"), "1\tx\n99999999999999999999\ty\n");
  EXPECT_EQ(test::error_of([&] { read_label_names(dir.file("huge.tsv")); }),
            dir.file("huge.tsv") + ": label '99999999999999999999' is a number too large for a class index");
  // With integer class names an integer is a name, never an index: "0" is not class "1".
  write_file(dir.file("c.tsv"), "1\tx\n0\ty\n");
  try {
    read_labelled_file(dir.file("c.tsv"), {"1", "2", "3"});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("c.tsv") + ": line 2: label '0' is not one of the model's classes (1, 2, 3)");
  }
}

// A corpus one token longer than a whole number of windows: that token is not a window of its own.
TEST(WindowBatches, ALastWindowOfOneTokenIsLeftOut) {
  std::vector<int64_t> ids(16 * 3 + 1, 5);
  const auto batches = make_window_batches(ids, 16, 3);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].input_ids.sizes(), torch::IntArrayRef({3, 16}));
  EXPECT_EQ(make_window_batches({7}, 16, 3).front().input_ids.sizes(), torch::IntArrayRef({1, 1}));  // the only one
  EXPECT_EQ(make_window_batches(std::vector<int64_t>(18, 5), 16, 3).front().input_ids.sizes(),
            torch::IntArrayRef({2, 16}));  // two tokens: one predicted, kept
}

// Paragraphs are runs of lines between blank lines (whitespace-only lines are blank); a word-level
// vocabulary with <eos> encodes line by line, so their first tokens are known exactly.
TEST(Paragraphs, BlankLinesSeparateThemAndEachWindowTakesTheOneItStartsIn) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\na\nb\nc\nd\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"));
  write_file(dir.file("text.txt"), "a b\nc\n\n  \nd a\n\nb\n");
  const auto corpus = read_token_paragraphs(dir.file("text.txt"), *tokenizer);
  // a b <eos> c <eos> | d a <eos> | b <eos>
  EXPECT_EQ(corpus.ids, (std::vector<int64_t>{2, 3, 1, 4, 1, 5, 2, 1, 3, 1}));
  EXPECT_EQ(corpus.paragraph_starts, (std::vector<int64_t>{0, 5, 8}));
  EXPECT_EQ(read_token_corpus(dir.file("text.txt"), *tokenizer), corpus.ids);
  // Windows begin at 0, 2, 4, 6, 8: paragraphs 0, 0, 0, 1, 2.
  EXPECT_EQ(window_paragraphs(corpus, 2), (std::vector<int64_t>{0, 0, 0, 1, 2}));
  // At 0, 4, 8: paragraphs 0, 0, 2, numbered over the paragraphs where a window begins.
  EXPECT_EQ(window_paragraphs(corpus, 4), (std::vector<int64_t>{0, 0, 1}));
  // As many windows as make_window_batches cuts (a last window of one token left out).
  EXPECT_EQ(window_paragraphs(corpus, 3).size(), 3u);
  EXPECT_EQ(make_window_batches(corpus.ids, 3, 8).front().input_ids.size(0), 3);

  // A text without a blank line has a paragraph per line (one sentence or review per line).
  write_file(dir.file("lines.txt"), "a b\nc\nd a b\n");
  EXPECT_EQ(read_token_paragraphs(dir.file("lines.txt"), *tokenizer).paragraph_starts, (std::vector<int64_t>{0, 3, 5}));
  // Unknown paragraphs give no blocks: each window is its own unit.
  EXPECT_TRUE(window_paragraphs(TokenCorpus{{2, 3, 4, 5}, {}}, 2).empty());
}

// WordPiece drops line breaks, so paragraphs cannot be found again in its tokens: unknown, not guessed.
TEST(Paragraphs, ATokenizerThatDropsLineBreaksLeavesThemUnknown) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\nb\n");
  const auto tokenizer = load_wordpiece_tokenizer(dir.file("vocab.txt"), true);
  write_file(dir.file("text.txt"), "a b\n\nb a\n");
  const auto corpus = read_token_paragraphs(dir.file("text.txt"), *tokenizer);
  EXPECT_EQ(corpus.ids, tokenizer->encode("a b\n\nb a\n").ids);
  EXPECT_TRUE(corpus.paragraph_starts.empty());
}

}  // namespace
}  // namespace aw
