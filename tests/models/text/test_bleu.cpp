// tests/models/text/test_bleu.cpp — corpus BLEU, chrF and 13a tokenisation (models/text/bleu.h) against
// sacreBLEU on the fixture corpora (tests/fixtures/bleu/), hand-worked examples, and the inputs it refuses.
#include "models/errors.h"
#include "models/text/bleu.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

using Texts = std::vector<std::string>;

// The brief's tolerance: a hundredth of a BLEU / chrF point (and of a precision in percent).
constexpr double kTolerance = 0.01;

const std::string kFixturePath = AW_SOURCE_DIR "/tests/fixtures/bleu/sacrebleu_cases.json";

const nlohmann::json& fixture() {
  static const nlohmann::json cases = [] {
    std::ifstream in(kFixturePath, std::ios::binary);
    if (!in) throw Error(kFixturePath + ": cannot be read");
    return nlohmann::json::parse(in);
  }();
  return cases;
}

// "corpus 17 (synthetic, 6 lines)" for failure messages.
std::string describe(size_t index, const nlohmann::json& corpus) {
  std::ostringstream text;
  text << "corpus " << index << " (" << corpus.at("kind").get<std::string>() << ", "
       << corpus.at("hypotheses").size() << " lines)";
  return text.str();
}

// ---------------------------------------------------------------------------------------------
// Against sacreBLEU

TEST(Tokenize13a, MatchesSacreBleuOnEveryFixtureLine) {
  const auto& lines = fixture().at("tokenize_13a");
  ASSERT_GE(lines.size(), 100u);
  for (const auto& line : lines)
    EXPECT_EQ(tokenize_13a(line.at("line").get<std::string>()), line.at("tokens").get<std::string>())
        << "line: " << line.at("line").dump();
}

TEST(CorpusBleu, MatchesSacreBleuOnEveryFixtureCorpus) {
  const auto& corpora = fixture().at("corpora");
  double max_difference = 0;
  size_t compared = 0, smoothed = 0;
  for (size_t i = 0; i < corpora.size(); ++i) {
    const auto& corpus = corpora[i];
    if (!corpus.contains("bleu")) continue;
    SCOPED_TRACE(describe(i, corpus));
    const auto& expected = corpus.at("bleu");
    const auto bleu = corpus_bleu(corpus.at("hypotheses").get<Texts>(), corpus.at("references").get<Texts>());

    EXPECT_EQ(bleu.hypothesis_length, expected.at("sys_len").get<int64_t>());
    EXPECT_EQ(bleu.reference_length, expected.at("ref_len").get<int64_t>());
    for (int n = 0; n < 4; ++n) {
      EXPECT_EQ(bleu.matches[n], expected.at("counts")[n].get<int64_t>()) << "order " << n + 1;
      EXPECT_EQ(bleu.totals[n], expected.at("totals")[n].get<int64_t>()) << "order " << n + 1;
      EXPECT_NEAR(bleu.precisions[n], expected.at("precisions")[n].get<double>(), kTolerance) << "order " << n + 1;
      max_difference = std::max(max_difference, std::abs(bleu.precisions[n] - expected.at("precisions")[n].get<double>()));
      if (bleu.matches[n] == 0 && bleu.totals[n] > 0 && bleu.score > 0) ++smoothed;
    }
    EXPECT_NEAR(bleu.brevity_penalty, expected.at("bp").get<double>(), kTolerance);
    EXPECT_NEAR(bleu.score, expected.at("score").get<double>(), kTolerance);
    max_difference = std::max(max_difference, std::abs(bleu.score - expected.at("score").get<double>()));
    ++compared;
  }
  // The fixture must keep exercising what it was written for: many corpora, some "exp" smoothing.
  EXPECT_GE(compared, 200u);
  EXPECT_GT(smoothed, 0u);
  std::cout << "BLEU: " << compared << " corpora against sacreBLEU " << fixture().at("sacrebleu_version").get<std::string>()
            << ", max |difference| " << max_difference << "\n";
}

TEST(CorpusChrf, MatchesSacreBleuOnEveryFixtureCorpus) {
  const auto& corpora = fixture().at("corpora");
  double max_difference = 0;
  size_t compared = 0;
  for (size_t i = 0; i < corpora.size(); ++i) {
    const auto& corpus = corpora[i];
    if (!corpus.contains("chrf")) continue;
    SCOPED_TRACE(describe(i, corpus));
    const double chrf = corpus_chrf(corpus.at("hypotheses").get<Texts>(), corpus.at("references").get<Texts>());
    EXPECT_NEAR(chrf, corpus.at("chrf").get<double>(), kTolerance);
    max_difference = std::max(max_difference, std::abs(chrf - corpus.at("chrf").get<double>()));
    ++compared;
  }
  EXPECT_GE(compared, 200u);
  std::cout << "chrF: " << compared << " corpora, max |difference| " << max_difference << "\n";
}

// sacreBLEU raises IndexError on an empty corpus (the fixture records it); we score it 0.
TEST(CorpusBleu, EmptyCorpusScoresZeroWhereSacreBleuRaises) {
  size_t empty_corpora = 0;
  for (const auto& corpus : fixture().at("corpora")) {
    if (!corpus.contains("sacrebleu_error")) continue;
    ASSERT_TRUE(corpus.at("hypotheses").empty()) << corpus.at("sacrebleu_error");
    ++empty_corpora;
  }
  EXPECT_GT(empty_corpora, 0u);

  const auto bleu = corpus_bleu({}, {});
  EXPECT_EQ(bleu.score, 0.0);
  EXPECT_EQ(bleu.brevity_penalty, 1.0);
  EXPECT_EQ(bleu.hypothesis_length, 0);
  EXPECT_EQ(bleu.reference_length, 0);
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(bleu.precisions[n], 0.0);
    EXPECT_EQ(bleu.matches[n], 0);
    EXPECT_EQ(bleu.totals[n], 0);
  }
  EXPECT_EQ(corpus_chrf({}, {}), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Worked by hand

// Two sentences, 13a tokens:
//   hyp 1  The cat sat on the mat .            (7)   ref 1  The cat is on the mat today .  (8)
//   hyp 2  Hello !                             (2)   ref 2  Hello , world !                 (4)
// Matches / hypothesis n-grams, per order:
//   1-grams  6/7 (all but "sat")  + 2/2                                   = 8/9
//   2-grams  3/6 (The cat, on the, the mat) + 0/1 ("Hello !")             = 3/7
//   3-grams  1/5 (on the mat)     + 0/0                                   = 1/5
//   4-grams  0/4 ("on the mat ." ≠ "on the mat today")                    = 0/4
// "exp" smoothing: the first order with no match counts 1 / (2 · 4) = 12.5 %.
// c = 9 < r = 12, so BP = exp(1 − 12/9) = exp(−1/3) ≈ 0.71653.
// BLEU = BP · (800/9 · 300/7 · 20 · 12.5)^(1/4) = exp(−1/3) · (60,000,000/63)^(1/4) ≈ 0.71653 · 31.2394 ≈ 22.384.
TEST(CorpusBleu, HandWorkedExampleWithSmoothingAndBrevityPenalty) {
  const auto bleu = corpus_bleu({"The cat sat on the mat.", "Hello!"}, {"The cat is on the mat today.", "Hello, world!"});
  EXPECT_EQ(bleu.hypothesis_length, 9);
  EXPECT_EQ(bleu.reference_length, 12);
  EXPECT_EQ(bleu.matches, (std::array<int64_t, 4>{8, 3, 1, 0}));
  EXPECT_EQ(bleu.totals, (std::array<int64_t, 4>{9, 7, 5, 4}));
  EXPECT_NEAR(bleu.precisions[0], 800.0 / 9, 1e-9);
  EXPECT_NEAR(bleu.precisions[1], 300.0 / 7, 1e-9);
  EXPECT_NEAR(bleu.precisions[2], 20.0, 1e-9);
  EXPECT_NEAR(bleu.precisions[3], 12.5, 1e-9);
  EXPECT_NEAR(bleu.brevity_penalty, std::exp(-1.0 / 3), 1e-12);
  EXPECT_NEAR(bleu.score, std::exp(-1.0 / 3) * std::pow(60e6 / 63, 0.25), 1e-9);
  EXPECT_NEAR(bleu.score, 22.384, 0.001);
}

// Without 3-grams in the whole corpus the third precision is 0, and its floored log makes BLEU 0
// even though every n-gram that exists matches (no effective order by default).
TEST(CorpusBleu, CorpusWithoutTrigramsScoresZero) {
  const auto bleu = corpus_bleu({"the cat"}, {"the cat"});
  EXPECT_EQ(bleu.precisions, (std::array<double, 4>{100, 100, 0, 0}));
  EXPECT_EQ(bleu.score, 0.0);
}

// Hypothesis "ab", reference "abc" (characters, no whitespace):
//   1-grams  P = 2/2, R = 2/3     2-grams  P = 1/1 (ab), R = 1/2 (ab, bc)
//   3..6     no hypothesis n-grams: left out of the averages.
// P̄ = 1, R̄ = (2/3 + 1/2) / 2 = 7/12; chrF = (1 + 4) P̄ R̄ / (4 P̄ + R̄) = (35/12) / (55/12) = 7/11.
TEST(CorpusChrf, HandWorkedExample) {
  EXPECT_NEAR(corpus_chrf({"ab"}, {"abc"}), 700.0 / 11, 1e-9);
  // Whitespace, including U+202F, is removed before the n-grams are taken.
  EXPECT_NEAR(corpus_chrf({"a b\u202f"}, {"ab\tc"}), 700.0 / 11, 1e-9);
}

// Pairs ("abcd", "ab") and ("xyz", "xyz"). The first reference has no 3-grams, so the first
// hypothesis's two 3-grams and one 4-gram are not counted at all (sacreBLEU's rule):
//   1-grams  P = (2 + 3)/(4 + 3) = 5/7   R = 5/5      2-grams  P = (1 + 2)/(3 + 2) = 3/5   R = 3/3
//   3-grams  P = 1/1 (only "xyz")        R = 1/1      4..6     left out (no reference n-grams)
// P̄ = (5/7 + 3/5 + 1)/3 = 27/35, R̄ = 1; chrF = 5 · 27/35 / (4 · 27/35 + 1) = 135/143.
TEST(CorpusChrf, ShortReferenceHidesTheHypothesisLongerNgrams) {
  EXPECT_NEAR(corpus_chrf({"abcd", "xyz"}, {"ab", "xyz"}), 13500.0 / 143, 1e-9);
}

TEST(Tokenize13a, SplitsPunctuationButKeepsNumbersTogether) {
  EXPECT_EQ(tokenize_13a("It's 1,000.50 (2.5%)."), "It's 1,000.50 ( 2.5 % ) .");
  EXPECT_EQ(tokenize_13a("1990-1995 well-known"), "1990 - 1995 well-known");
  EXPECT_EQ(tokenize_13a("&amp;quot; &lt;b&gt;"), "& quot ; < b >");
}

// ---------------------------------------------------------------------------------------------
// Bad input and the signature

TEST(CorpusBleu, MismatchedSizesAreRefused) {
  EXPECT_EQ(error_of([] { corpus_bleu({"a", "b", "c"}, {"a", "b", "c", "d"}); }), "BLEU: 3 hypotheses but 4 references");
  EXPECT_EQ(error_of([] { corpus_chrf({"a", "b"}, {"a"}); }), "chrF: 2 hypotheses but 1 reference");
}

TEST(CorpusBleu, InvalidUtf8IsRefusedNamingTheLine) {
  EXPECT_EQ(error_of([] { corpus_bleu({"ok", "caf\xC3"}, {"ok", "cafe"}); }),
            "BLEU: hypothesis 2: text is not valid UTF-8 (byte offset 3)");
  EXPECT_EQ(error_of([] { corpus_chrf({"ok"}, {"\xFF"}); }), "chrF: reference 1: text is not valid UTF-8 (byte offset 0)");
}

TEST(CorpusBleu, SignatureNamesSacreBleuDefaults) {
  EXPECT_EQ(corpus_bleu({"a"}, {"a"}).signature(), "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:aw");
}

}  // namespace
}  // namespace aw
