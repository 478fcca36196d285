// tests/models/text/test_syntax_hints.cpp — BET(SG)'s syntax hints (models/text/syntax_hints.h): CoNLL-U
// read (multi-word tokens and empty nodes skipped), hints and pointer loss against hand-worked values and
// finite differences, and the errors of malformed files.
#include "models/errors.h"
#include "models/text/syntax_hints.h"
#include "tests/support/conllu_sentences.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::kBookSentence;
using test::kCatSentence;
using test::TempDir;
using test::write_file;

std::string conllu_error(const std::string& text) {
  TempDir dir;
  const auto path = dir.file("bad.conllu");
  write_file(path, text);
  try {
    read_conllu(path);
  } catch (const Error& error) {
    const std::string message = error.what();
    return message.substr(message.find(".conllu:") + 1);  // "conllu:<line>: …" without the temp folder
  }
  return "no error";
}

TEST(Conllu, ReadsWordsAndSkipsMultiWordTokensAndEmptyNodes) {
  TempDir dir;
  write_file(dir.file("two.conllu"), std::string(kCatSentence) + kBookSentence);
  const auto sentences = read_conllu(dir.file("two.conllu"));
  ASSERT_EQ(sentences.size(), 2u);
  EXPECT_EQ(sentence_text(sentences[0]), "The cat sat on the mat .");
  EXPECT_EQ(sentence_text(sentences[1]), "She gave him a book .");
  EXPECT_EQ(sentences[1].heads, (std::vector<int64_t>{2, 0, 2, 5, 2, 2}));
  EXPECT_EQ(sentences[1].lines, (std::vector<int64_t>{11, 12, 13, 15, 16, 18}));
}

TEST(Conllu, HintsAreTheNearestLeftAncestorOfTheNextWord) {
  TempDir dir;
  write_file(dir.file("two.conllu"), std::string(kCatSentence) + kBookSentence);
  const auto sentences = read_conllu(dir.file("two.conllu"));
  // Worked by hand (positions 0-based, the last entry is "<eos>"):
  //  t=0 predicts "cat": its head "sat" (2) is right of it and "sat" is the root → none → 0.
  //  t=1 predicts "sat" (the root) → 1.  t=2 predicts "on": head "mat" (5) is to the right, its head
  //  "sat" (2) is left → 2; likewise "the" (t=3), "mat" (t=4) and "." (t=5) → 2.
  //  t=6 predicts "<eos>" → 6; "<eos>" itself → 7.
  EXPECT_EQ(syntax_hints(sentences[0]), (std::vector<int64_t>{0, 1, 2, 2, 2, 2, 6, 7}));
  //  "She gave him a book .": t=0 predicts "gave" (root) → 0; "him", "a" (via "book" → "gave"),
  //  "book" and "." all reach "gave" at 1 → 1; t=5 → 5, "<eos>" → 6.
  EXPECT_EQ(syntax_hints(sentences[1]), (std::vector<int64_t>{0, 1, 1, 1, 1, 5, 6}));
}

TEST(Conllu, HintsFollowTheWindowCut) {
  // Both sentences as one stream (8 + 7 positions), windows of 6: hints become window-relative, and
  // position 12 (hint 9, in the previous window) falls back to itself.
  const std::vector<int64_t> stream = {0, 1, 2, 2, 2, 2, 6, 7, 8, 9, 9, 9, 9, 13, 14};
  const auto hints = window_hints(stream, 6);
  const auto expected = torch::tensor({0, 1, 2, 2, 2, 2,  //
                                       0, 1, 2, 3, 3, 3,  //
                                       0, 1, 2, -1, -1, -1},
                                      torch::kLong)
                            .view({3, 6});
  EXPECT_TRUE(torch::equal(hints, expected)) << hints;
}

TEST(Conllu, MalformedLinesNameTheirLine) {
  const std::string good = "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n";
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t1\tdep\t_\n\n"),
            "conllu:2: expected 10 tab-separated fields, found 9");
  EXPECT_EQ(conllu_error(good + "x\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"), "conllu:2: ID 'x' is not a word index");
  EXPECT_EQ(conllu_error(good + "3\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"), "conllu:2: ID 3 where 2 was expected");
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t_\tdep\t_\t_\n"), "conllu:2: HEAD '_' is not a word index");
  EXPECT_EQ(conllu_error("# c\n" + good + "2\tB\tb\tX\t_\t_\t7\tdep\t_\t_\n"),
            "conllu:3: HEAD 7 is past the sentence's 2 words");
  EXPECT_EQ(conllu_error("1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n"),
            "conllu:1: HEAD links form a cycle (no path to the root)");
  // Issue 18's fuzzing findings: word 1's walk reaches word 2 before word 2's HEAD was range-checked
  // (it read past the heads); a 20-digit ID or HEAD threw a bare "stoll".
  EXPECT_EQ(conllu_error("1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t1000000000000000\tdep\t_\t_\n"),
            "conllu:2: HEAD 1000000000000000 is past the sentence's 2 words");
  EXPECT_EQ(conllu_error(good + "2\tB\tb\tX\t_\t_\t99999999999999999999\tdep\t_\t_\n"),
            "conllu:2: HEAD '99999999999999999999' is not a word index");
  EXPECT_EQ(conllu_error("99999999999999999999\tA\ta\tX\t_\t_\t0\troot\t_\t_\n"),
            "conllu:1: ID '99999999999999999999' is not a word index");
}

TEST(Conllu, FileWithoutSentencesOrMissingIsAnError) {
  TempDir dir;
  write_file(dir.file("empty.conllu"), "# only a comment\n\n");
  EXPECT_THROW(
      {
        try {
          read_conllu(dir.file("empty.conllu"));
        } catch (const Error& error) {
          EXPECT_EQ(std::string(error.what()), dir.file("empty.conllu") + ": holds no CoNLL-U sentence");
          throw;
        }
      },
      Error);
  EXPECT_THROW(read_conllu(dir.file("missing.conllu")), Error);
}

TEST(PointerLoss, EqualsTheHandWorkedValue) {
  // Layer 1: heads average to row 1 = [0.5, 0.5, 0]; layer 2: row 1 = [0.2, 0.8, 0]. Hints [0, 0, −1]:
  // layer 1 gives (−log 1 − log 0.5) / 2, layer 2 (−log 1 − log 0.2) / 2; total ln(10) / 2.
  auto layer1 = torch::tensor({1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.2, 0.3, 0.5,  //
                               1.0, 0.0, 0.0, 0.75, 0.25, 0.0, 0.4, 0.3, 0.3})
                    .view({1, 2, 3, 3});
  auto layer2 = torch::tensor({1.0, 0.0, 0.0, 0.2, 0.8, 0.0, 0.1, 0.1, 0.8}).view({1, 1, 3, 3}).repeat({1, 2, 1, 1});
  const auto hints = torch::tensor({0, 0, -1}, torch::kLong).view({1, 3});
  const auto loss = pointer_loss({layer1, layer2}, hints);
  EXPECT_NEAR(loss.item<double>(), std::log(10.0) / 2.0, 1e-6);
}

TEST(PointerLoss, GradientMatchesFiniteDifferences) {
  torch::manual_seed(3);
  auto scores = torch::randn({2, 2, 4, 4}, torch::kFloat64).requires_grad_(true);
  const auto hints = torch::tensor({0, 0, 1, 2, 0, 1, 1, -1}, torch::kLong).view({2, 4});
  auto loss_of = [&](const torch::Tensor& s) { return pointer_loss({torch::softmax(s, -1)}, hints); };
  loss_of(scores).backward();
  const auto analytic = scores.grad().clone();
  torch::NoGradGuard no_grad;
  const double step = 1e-6;
  auto flat = scores.detach().clone().view(-1);
  for (int64_t i = 0; i < flat.numel(); i += 5) {
    auto plus = flat.clone(), minus = flat.clone();
    plus[i] += step;
    minus[i] -= step;
    const double numeric = (loss_of(plus.view_as(scores)).item<double>() - loss_of(minus.view_as(scores)).item<double>()) /
                           (2 * step);
    EXPECT_NEAR(analytic.view(-1)[i].item<double>(), numeric, 1e-6) << "element " << i;
  }
}

}  // namespace
}  // namespace aw
