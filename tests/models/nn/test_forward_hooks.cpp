// tests/models/nn/test_forward_hooks.cpp — models/nn/forward_hooks.h: a forward's gates and capture are
// hooks on the one mechanism. The gates are the first writer at z (a reader there sees gated contexts),
// a writer at z may split the rows into settings as gates of k·B rows do (and nowhere else), and the
// capture is the last reader at pattern (it sees what a writer there wrote), at the captured layers only.
#include "models/nn/forward_hooks.h"
#include "models/nn/hooks.h"
#include "models/nn/transformer.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace aw {
namespace {

using test::tiny_config;

std::shared_ptr<TransformerImpl> tiny_model() {
  return test::random_model(tiny_config("transformer_lm"), 5, /*every_parameter=*/true);  // far from uniform attention
}

using test::input_of;
const std::vector<int64_t> kIds = {2, 5, 7, 3, 11, 4, 9, 2};

// The contexts a reader at z of `layer` sees.
torch::Tensor z_seen(TransformerImpl& model, ForwardOptions options, int64_t layer) {
  torch::Tensor seen;
  options.hooks.add(HookPoint::Z, layer, [&seen](const HookSite&, const torch::Tensor& value) {
    seen = value.clone();
    return torch::Tensor();
  });
  model.forward(input_of(kIds), options);
  return seen;
}

TEST(ForwardHooks, TheGatesAreTheFirstWriterAtZ) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto& config = model->config();
  ForwardOptions gated;
  gated.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  gated.head_gates.index_put_({1, 2}, 0.5);
  const auto plain = z_seen(*model, {}, 1), seen = z_seen(*model, gated, 1);
  EXPECT_TRUE(torch::equal(seen.select(1, 2), plain.select(1, 2) * 0.5));
  EXPECT_TRUE(torch::equal(seen.select(1, 0), plain.select(1, 0)));
}

// Two settings of one row from layer 1's z on: as is, and head 0 off; each is its own forward.
TEST(ForwardHooks, AWriterAtZMaySplitTheRowsIntoSettings) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto& config = model->config();
  const auto input = input_of(kIds);
  ForwardOptions split;
  split.hooks.add(HookPoint::Z, 1, [](const HookSite&, const torch::Tensor& value) {
    auto off = value.clone();
    off.select(1, 0).zero_();
    return torch::cat({value, off}, 0);                                                       // (2, H, n, dh)
  });
  const auto logits = model->forward(input, split).logits;
  ASSERT_EQ(logits.size(0), 2);
  ForwardOptions gated;
  gated.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  gated.head_gates.index_put_({1, 0}, 0.0);
  EXPECT_TRUE(torch::allclose(logits[0], model->forward(input).logits[0], 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(logits[1], model->forward(input, gated).logits[0], 1e-5, 1e-5));
}

TEST(ForwardHooks, NoOtherPointMaySplitTheRows) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  ForwardOptions split;
  split.hooks.add(HookPoint::ResidPost, 1, [](const HookSite&, const torch::Tensor& value) {
    return torch::cat({value, value}, 0);
  });
  const auto d = std::to_string(model->config().d_model);
  EXPECT_EQ(test::error_of([&] { model->forward(input_of(kIds), split); }),
            "a hook at blocks.1.resid_post wrote a tensor of shape [2, 8, " + d + "]; the point's is [1, 8, " + d + "]");
}

TEST(ForwardHooks, TheCaptureIsTheLastReaderAtPatternOfTheCapturedLayersOnly) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  options.capture_layers = {false, true};
  torch::Tensor written;
  options.hooks.add(HookPoint::Pattern, 1, [&written](const HookSite&, const torch::Tensor& value) {
    written = value.flip(-1).contiguous();  // not a causal pattern: seen only if the capture comes after
    return written;
  });
  const auto result = model->forward(input_of(kIds), options);
  ASSERT_EQ(result.attention.size(), 1u);
  EXPECT_TRUE(torch::equal(result.attention[0], written));
}

// The hooks themselves: nothing asked, nothing added (a forward without them asks one bit per point).
TEST(ForwardHooks, NoGatesNoCaptureNoCallersHooksIsNoHook) {
  ForwardOptions options;
  AttentionSink sink(options);
  EXPECT_TRUE(forward_hooks({}, options.hooks, sink, 0, 2).empty());
  EXPECT_TRUE(forward_hooks({torch::Tensor(), torch::Tensor()}, options.hooks, sink, 0, 2).empty());
}

}  // namespace
}  // namespace aw
