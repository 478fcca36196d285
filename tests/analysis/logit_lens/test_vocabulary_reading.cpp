// tests/analysis/logit_lens/test_vocabulary_reading.cpp — analysis/logit_lens/vocabulary_reading.h: the
// slice-by-slice reading of logits equals the whole tensor's top-k, logsumexp, rank and expectation, on the
// CPU's own walk (float32) and on LibTorch's ops (float64 takes them), across slice boundaries, with ties.
#include "analysis/logit_lens/vocabulary_reading.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

using test::max_difference;

// 1,024 positions make slices of 2,048 tokens: 5,000 tokens are three slices, the last a short one.
constexpr int64_t kPositions = 1024, kVocabulary = 5000, kTop = 4;

struct Case {
  torch::Tensor logits;  // (P, V)
  torch::Tensor scored;  // (P)
};

Case make_case(torch::ScalarType dtype) {
  torch::manual_seed(11);
  Case made;
  made.logits = (torch::randn({kPositions, kVocabulary}) * 3).to(dtype);
  // Ties: row 0 holds its best value at both ends of the vocabulary (another slice each), row 1 a value
  // equal to its scored token's logit in another slice.
  made.logits[0][0] = 50.0;
  made.logits[0][kVocabulary - 1] = 50.0;
  made.scored = torch::randint(0, kVocabulary, {kPositions}, torch::kLong);
  made.scored[1] = 7;
  made.logits[1][4000] = made.logits[1][7].item<double>();
  return made;
}

// `first_of_ties`: the CPU's walk keeps the first of equal logits (LibTorch's topk leaves their order open).
void expect_reads_the_whole(const Case& made, bool first_of_ties) {
  const auto& logits = made.logits;
  const auto weights = torch::softmax(torch::randn({kPositions, kVocabulary}, logits.options()), 1);
  const auto reading = read_vocabulary(whole_logits(logits), made.scored, kTop, weights);
  const auto [values, ids] = logits.topk(kTop, 1);
  EXPECT_TRUE(torch::equal(reading.top_logits, values));
  // Where values tie, the first token comes first; elsewhere the ids are topk's.
  if (first_of_ties) {
    EXPECT_EQ(reading.top_ids[0][0].item<int64_t>(), 0);
    EXPECT_EQ(reading.top_ids[0][1].item<int64_t>(), kVocabulary - 1);
  }
  EXPECT_TRUE(torch::equal(reading.top_ids.narrow(0, 1, kPositions - 1), ids.narrow(0, 1, kPositions - 1)));
  const auto log_sum = torch::logsumexp(logits, 1);
  EXPECT_TRUE(torch::allclose(reading.log_sum, log_sum, 1e-6, 1e-6)) << max_difference(reading.log_sum, log_sum);
  const auto own = logits.gather(1, made.scored.unsqueeze(1));
  EXPECT_TRUE(torch::equal(reading.scored, own.squeeze(1)));
  const auto above = (logits > own).sum(1).to(torch::kInt);  // the scored token is never above itself
  EXPECT_TRUE(torch::equal(reading.above, above));
  EXPECT_EQ(reading.above[1].item<int>(), above[1].item<int>()) << "a tie with the scored token is not above it";
  const auto expected = (weights * logits).sum(1);
  EXPECT_TRUE(torch::allclose(reading.expected, expected, 1e-6, 1e-6)) << max_difference(reading.expected, expected);
}

TEST(VocabularyReading, TheCpusWalkReadsWhatTheWholeLogitsHold) {
  expect_reads_the_whole(make_case(torch::kFloat32), true);
}

TEST(VocabularyReading, LibTorchsOpsReadWhatTheWholeLogitsHold) {
  expect_reads_the_whole(make_case(torch::kFloat64), false);
}

}  // namespace
}  // namespace aw
