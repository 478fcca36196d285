// tests/analysis/retrieval/test_retrieval_heads.cpp — the needle-in-a-haystack cases (layout, depths,
// refusals), the retrieval counts of a model against plain loops over its captured attention and
// logits (which head's top key lands on the needle, which needle tokens the greedy prefix copies),
// and the descriptor's refusals (analysis/retrieval/).
#include "analysis/retrieval/needle_cases.h"
#include "analysis/retrieval/retrieval_heads.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::error_of;
using test::setting_error_of;
using test::TempDir;
using test::tiny_config;
using test::write_file;
using test::write_tiny_checkpoint;

std::vector<int64_t> counting(int64_t from, int64_t count) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < count; ++i) ids.push_back(from + i);
  return ids;
}

// Length 12: a needle of 3, a prompt of 1 and the needle again leave 5 haystack tokens, split by depth.
TEST(NeedleCases, NeedleAtEachDepthThenPromptAndCopy) {
  NeedleSettings settings;
  settings.lengths = {12};
  settings.depths = {0, 0.5, 1};
  settings.prompt = {90};
  const auto cases = needle_cases(counting(10, 20), {{70, 71, 72}}, settings);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].ids, (std::vector<int64_t>{70, 71, 72, 10, 11, 12, 13, 14, 90, 70, 71, 72}));
  EXPECT_EQ(cases[1].ids, (std::vector<int64_t>{10, 11, 12, 70, 71, 72, 13, 14, 90, 70, 71, 72}));  // round(2.5) = 3
  EXPECT_EQ(cases[2].ids, (std::vector<int64_t>{10, 11, 12, 13, 14, 70, 71, 72, 90, 70, 71, 72}));
  EXPECT_EQ(cases[1].needle_start, 3);
  EXPECT_EQ(cases[1].copy_start, 9);
  settings.cue = 3;
  EXPECT_EQ(error_of([&] { needle_cases(counting(10, 20), {{70, 71, 72}}, settings); }),
            "needle 1 has 3 tokens, no more than the cue's 3: nothing is left to copy");
  settings.cue = 1;
  settings.lengths = {6};
  EXPECT_EQ(error_of([&] { needle_cases(counting(10, 20), {{70, 71, 72}}, settings); }),
            "needle 1 (3 tokens), the prompt (1) and the needle again do not fit 6 tokens");
  settings.lengths = {12};
  EXPECT_EQ(error_of([&] { needle_cases(counting(10, 4), {{70, 71, 72}}, settings); }),
            "the haystack text has 4 tokens; a case of 12 tokens needs 5");
}

// The counts against loops over the full attention and logits of each case alone (the engine batches
// cases of one length and reads tiles).
TEST(RetrievalHeads, CountsEqualLoopsOverTheModelsAttention) {
  TempDir dir;
  write_tiny_checkpoint(dir.file("lm"), tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(dir.file("lm"));
  NeedleSettings settings;
  settings.lengths = {16, 12};
  settings.depths = {0, 0.4, 1};
  settings.cue = 1;
  std::vector<int64_t> haystack;
  for (int64_t i = 0; i < 16; ++i) haystack.push_back(2 + (i * 7) % 17);
  // A random model copies little: a needle of one repeated token it does predict after itself is
  // searched for, beside a needle it does not copy, so both branches of the prefix rule are taken.
  std::vector<NeedleCase> cases;
  RetrievalResult result;
  for (int64_t token = 2; token < 20 && !(result.copied.defined() && result.copied.sum().item<double>() > 0); ++token) {
    cases = needle_cases(haystack, {{5, 9, 3, 12}, {token, token, token, token}}, settings);
    result = retrieval_heads(*lm.model, cases, settings, 4, {});
  }
  const auto& config = lm.config;
  const int64_t groups = 6;
  auto looked = torch::zeros({groups, config.n_blocks, config.max_heads()}, torch::kFloat64);
  auto hits = torch::zeros_like(looked);
  auto copied = torch::zeros({groups}, torch::kFloat64), asked = torch::zeros({groups}, torch::kFloat64);
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  for (const auto& c : cases) {
    const int64_t group = (c.length == 16 ? 0 : 3) + (c.depth == 0 ? 0 : c.depth == 1 ? 2 : 1);
    ModelInput input;
    input.input_ids = torch::tensor(c.ids, torch::kLong).unsqueeze(0);
    const auto out = lm.model->forward(input, options);
    bool prefix = true;
    for (int64_t j = settings.cue; j < c.needle_length; ++j) {
      const int64_t row = c.copy_start + j - 1;
      asked[group] += 1;
      prefix = prefix && out.logits[0][row].argmax().item<int64_t>() == c.ids[row + 1];
      if (prefix) copied[group] += 1;
      for (int64_t layer = 0; layer < config.n_blocks; ++layer)
        for (int64_t head = 0; head < config.heads_per_block[layer]; ++head) {
          const bool on = out.attention[layer][0][head][row].argmax().item<int64_t>() == c.needle_start + j;
          looked[group][layer][head] += on;
          hits[group][layer][head] += on && prefix;
        }
    }
  }
  EXPECT_TRUE(torch::equal(result.asked, asked));
  EXPECT_TRUE(torch::equal(result.copied, copied));
  EXPECT_TRUE(torch::equal(result.looked, looked));
  EXPECT_TRUE(torch::equal(result.hits, hits));
  EXPECT_GT(looked.sum().item<double>(), 0);  // some head does look at the needle
  EXPECT_GT(copied.sum().item<double>(), 0);  // and some needle token is copied
  EXPECT_EQ(result.lengths, (std::vector<int64_t>{16, 16, 16, 12, 12, 12}));
}

TEST_F(DescriptorRun, RetrievalHeadsRefusals) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  auto run = [&](const std::string& name, const std::string& value) {
    AnalysisRequest request;
    request.models = {&lm};
    request.settings = analysis("retrieval-heads").settings();
    request.settings.set("text", dir_.file("corpus.txt"));
    request.settings.set("needles", dir_.file("needles.txt"));
    request.settings.set("lengths", "16");
    if (!name.empty()) request.settings.set(name, value);
    analysis("retrieval-heads")(request);
  };
  write_file(dir_.file("needles.txt"), "w3 w4 w5 w6 w7 w8 w9 w10 w11\n");
  EXPECT_EQ(error_of([&] { run("", ""); }),
            dir_.file("corpus.txt") + ": needle 1 (9 tokens), the prompt (0) and the needle again do not fit 16 tokens");
  write_file(dir_.file("needles.txt"), "w3 w4 w5 w6\n\n");
  EXPECT_EQ(setting_error_of([&] { run("lengths", "17"); }), "--lengths has 17, more than the model's 16 positions");
  EXPECT_EQ(setting_error_of([&] { run("depths", "0,1.5"); }), "--depths must be numbers from 0 to 1, got '1.5'");
  // The tiny random model copies nothing: no score, said in one line.
  const auto message = error_of([&] { run("", ""); });
  EXPECT_EQ(message, dir_.file("lm") + ": copied none of the 10 needle tokens after the cue: there is no copy to "
                                       "attribute to a head, so no retrieval score") << message;
  write_file(dir_.file("needles.txt"), "\n");
  EXPECT_EQ(error_of([&] { run("", ""); }), dir_.file("needles.txt") + ": holds no needle (one sentence a line)");
}

}  // namespace
}  // namespace aw
