// tests/analysis/lama/test_lama_attention.cpp — each document's word weights per head from a LAMA model equal
// its forward's capture (analysis/lama/lama_attention)
#include "analysis/lama/lama_attention.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::tiny_lama;
using test::write_file;

TEST(WordWeights, DocumentAttentionFromTheModel) {
  TempDir dir;
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\nw2\nw3\nw4\nw5\nw6\nw7\nw8\nw9\nw10\nw11\nw12\nw13\nw14\nw15\nw16\nw17\nw18\nw19\n");
  const auto tokenizer = load_word_tokenizer(dir.file("vocab.txt"));
  auto model = tiny_lama();
  const std::vector<LabelledExample> examples = {{0, "w2 w3 w4", ""}, {2, "w5 nothing", ""}, {1, "w6", ""}};
  const auto result = lama_document_attention(*model, *tokenizer, examples, 2);
  ASSERT_EQ(result.documents.size(), 3u);
  EXPECT_EQ(result.documents[1].tokens, (std::vector<std::string>{"w5", "<unk>"}));
  EXPECT_EQ(result.documents[1].label, 2);
  EXPECT_EQ(result.documents[2].index, 2);
  // Each head's weights sum to 1 over the document's words, and equal the forward's capture.
  ModelInput input;
  input.input_ids = torch::tensor({2, 3, 4}, torch::kLong).view({1, 3});
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  torch::NoGradGuard no_grad;
  const auto a = model->forward(input, options).attention[0];
  for (int64_t h = 0; h < 3; ++h) {
    double sum = 0.0;
    for (int64_t t = 0; t < 3; ++t) {
      EXPECT_NEAR(result.documents[0].weight(h, t), a[0][h][0][t].item<float>(), 1e-6);
      sum += result.documents[0].weight(h, t);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  TempDir lm_dir;
  test::write_tiny_checkpoint(lm_dir.path(), test::tiny_config("transformer_lm"));
  const auto lm = load_checkpoint(lm_dir.path());
  EXPECT_THROW(lama_document_attention(*lm.model, *lm.tokenizer, examples), Error);
}

}  // namespace
}  // namespace aw
