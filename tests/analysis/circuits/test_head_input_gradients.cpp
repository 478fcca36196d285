// tests/analysis/circuits/test_head_input_gradients.cpp — each head's own q, k and v input gradient
// (analysis/circuits/head_input_gradients.h): over every head and input they add up to what the model's
// autograd gives at the layer's input through its attention (the norm's transpose Jacobian applied to the
// gradient at attn_in), on every decoder family of tests/fixtures/hf_models that reads heads apart; and
// OLMo 2's and OLMoE's whole-projection q/k norms are refused.
#include "analysis/circuits/head_input_gradients.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

struct Read {
  torch::Tensor state, attn_in, q, k, v;            // the values at layer `layer`'s hooks
  torch::Tensor grad_attn_in, grad_q, grad_k, grad_v;  // one logit's gradients there
};

Read read_layer(AttentionModel& model, int64_t layer) {
  const auto& config = model.config();
  torch::manual_seed(3);
  ModelInput input;
  input.input_ids = torch::randint(3, config.vocab_size, {2, 6}, torch::kLong);
  Read read;
  ForwardOptions options;
  options.hooks.add(HookPoint::ResidPre, 0, [](const HookSite&, const torch::Tensor& x) {
    return x.detach().requires_grad_(true);  // every later tensor in the graph
  });
  auto keep = [](torch::Tensor& into) {
    return [&into](const HookSite&, const torch::Tensor& x) { return into = x, torch::Tensor(); };
  };
  options.hooks.add(HookPoint::ResidPre, layer, keep(read.state));
  options.hooks.add(HookPoint::AttnIn, layer, keep(read.attn_in));
  options.hooks.add(HookPoint::Q, layer, keep(read.q));
  options.hooks.add(HookPoint::K, layer, keep(read.k));
  options.hooks.add(HookPoint::V, layer, keep(read.v));
  torch::AutoGradMode on(true);
  const auto logit = model.forward(input, options).logits.select(1, 5).select(1, 7).sum();
  const auto grads = torch::autograd::grad({logit}, {read.attn_in, read.q, read.k, read.v});
  read.grad_attn_in = grads[0], read.grad_q = grads[1], read.grad_k = grads[2], read.grad_v = grads[3];
  return read;
}

class HeadInputGradientsFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadInputGradientsFamilies, AddUpToTheGradientThroughTheAttention) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  auto& model = dynamic_cast<TransformerImpl&>(*loaded.model);
  for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer) {
    const auto read = read_layer(model, layer);
    const auto heads = head_input_gradients(model, layer, read.state, read.grad_q, read.grad_k, read.grad_v);
    ASSERT_EQ(heads.query.size(0), loaded.config.heads_per_block[layer]);
    ASSERT_EQ(heads.key.size(0), loaded.config.kv_heads_in(layer));
    const auto summed = heads.query.sum(0) + heads.key.sum(0) + heads.value.sum(0);  // [B, n, d]
    // The model's own: ∂/∂state of ⟨grad at attn_in, ln_1(state)⟩.
    torch::AutoGradMode on(true);
    auto& block = *model.layers[layer]->as<TransformerBlockImpl>();
    const auto state = read.state.detach().requires_grad_(true);
    const auto normed = block.ln_1 ? block.ln_1(state) : state;
    const auto expected = torch::autograd::grad({(normed * read.grad_attn_in).sum()}, {state})[0];
    const double scale = expected.abs().max().item<double>();
    EXPECT_LT((summed - expected).abs().max().item<double>(), 1e-5 * std::max(1.0, scale))
        << GetParam() << " layer " << layer;
    // And no head's share is the whole: they differ.
    EXPECT_GT((heads.query[0] - heads.query[1]).abs().max().item<double>(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Decoders, HeadInputGradientsFamilies,
                         ::testing::Values("llama", "mistral", "qwen2", "gpt2", "gpt_neox", "gpt_neox_sequential", "qwen3",
                                           "qwen3_bias", "gemma2", "gemma3", "phi3_grouped", "mixtral", "gpt_oss"));

TEST(HeadInputGradients, RefusesAQueryNormOverEveryHead) {
  for (const std::string name : {"olmo2", "olmoe"}) {
    const auto loaded = load_checkpoint(kModels + name);
    auto& model = dynamic_cast<TransformerImpl&>(*loaded.model);
    const auto read = read_layer(model, 0);
    try {
      head_input_gradients(model, 0, read.state, read.grad_q, read.grad_k, read.grad_v);
      FAIL() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(std::string(error.what()), "edge attribution needs heads that read the residual stream apart; " + name +
                                               "'s query and key norms span every head at once");
    }
  }
}

}  // namespace
}  // namespace aw
