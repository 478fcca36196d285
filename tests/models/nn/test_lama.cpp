// tests/models/nn/test_lama.cpp — the LAMA classifier (models/nn/lama.h): the attention chain and S = AH
// against a float64 re-implementation, the low-rank score as a bilinear form, the regularisers against
// hand-computed values, its head gates and its hook points.
#include "models/errors.h"
#include "models/nn/config_enums.h"
#include "models/nn/lama.h"
#include "models/nn/model.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::max_difference;
using test::tiny_lama;
using test::two_documents;

torch::Tensor f64(const torch::Tensor& t) { return t.detach().to(torch::kFloat64); }

// The attention chain written out independently in float64 from the model's parameters and its GRU
// annotations (embed's output): returns {f, A, S}.
std::vector<torch::Tensor> reference_chain(LamaImpl& model, const torch::Tensor& embedded, const torch::Tensor& mask) {
  const int64_t width = 8;
  const auto h = f64(embedded.narrow(-1, 0, width));                                  // (B, n, 2h)
  const auto keep = mask.to(torch::kFloat64);                                          // (B, n)
  torch::Tensor c;
  if (model.context.defined()) {
    c = f64(model.context).unsqueeze(0).expand({h.size(0), width});
  } else {
    const auto e = f64(embedded.narrow(-1, width, embedded.size(-1) - width));         // (B, n, E)
    const auto mean = (e * keep.unsqueeze(-1)).sum(1) / keep.sum(1, true);
    c = model.context_proj ? torch::matmul(mean, f64(model.context_proj->weight).t()) + f64(model.context_proj->bias)
                           : mean;
  }
  const auto u = torch::tanh(torch::matmul(h, f64(model.word_proj->weight).t()) + f64(model.word_proj->bias));
  const auto p = f64(model.p), q = f64(model.q);
  const auto f = torch::matmul(c, p).unsqueeze(1) * torch::matmul(u, q);               // (B, n, m)
  const auto t = torch::tanh(f);
  const auto g = t / t.pow(2).sum(-1, true).sqrt();                                    // ℓ2 over heads
  auto logits = g.transpose(1, 2);                                                     // (B, m, n)
  logits = logits.masked_fill(keep.eq(0).unsqueeze(1), -INFINITY);
  const auto a = logits.exp() / logits.exp().sum(-1, true);
  return {f, a, torch::matmul(a, h)};
}

TEST(Lama, AttentionChainAndPooledMatchFloat64) {
  for (const auto& [context, embedding_dim] : std::vector<std::pair<std::string, int64_t>>{{"mean", 6}, {"mean", 8}, {"learned", 6}}) {
    SCOPED_TRACE(context + ", E=" + std::to_string(embedding_dim));
    auto model = tiny_lama(context, embedding_dim);
    torch::NoGradGuard no_grad;
    const auto input = two_documents();
    const auto embedded = model->embed(input);
    const auto reference = reference_chain(*model, embedded, input.attention_mask);
    const auto attended = model->attend(embedded, input.attention_mask, {});
    EXPECT_TRUE(torch::allclose(f64(attended.scores), reference[0], 1e-5, 1e-6)) << max_difference(attended.scores, reference[0]);
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto result = model->forward(input, options);
    ASSERT_EQ(result.attention.size(), 1u);
    EXPECT_EQ(result.attention[0].sizes(), (std::vector<int64_t>{2, 3, 1, 7}));
    const auto a = result.attention[0].squeeze(2);
    EXPECT_TRUE(torch::allclose(f64(a), reference[1], 1e-5, 1e-6)) << max_difference(a, reference[1]);
    EXPECT_TRUE(torch::allclose(f64(result.hidden), reference[2], 1e-5, 1e-6)) << max_difference(result.hidden, reference[2]);
    // Rows sum to 1 and padding gets no weight.
    EXPECT_TRUE(torch::allclose(a.sum(-1), torch::ones({2, 3}), 1e-5, 1e-6));
    EXPECT_EQ(a[1].narrow(1, 5, 2).abs().max().item<float>(), 0.0f);
    // The MLP reads S flattened.
    EXPECT_TRUE(torch::allclose(result.logits, model->mlp(result.hidden.flatten(1)), 1e-6, 1e-6));
  }
}

TEST(Lama, PaddingDoesNotChangeADocument) {
  auto model = tiny_lama();
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  const auto batch = model->forward(two_documents(), options);
  ModelInput alone;
  alone.input_ids = torch::tensor({6, 8, 3, 12, 2}, torch::kLong).view({1, 5});
  const auto single = model->forward(alone, options);
  const auto padded_row = batch.attention[0][1].narrow(-1, 0, 5);
  EXPECT_TRUE(torch::allclose(padded_row, single.attention[0][0], 1e-5, 1e-6)) << max_difference(padded_row, single.attention[0][0]);
  EXPECT_TRUE(torch::allclose(batch.logits[1], single.logits[0], 1e-5, 1e-6));
}

TEST(Lama, LowRankScoreIsTheBilinearForm) {
  torch::manual_seed(1);
  const auto c = torch::randn({2, 8}, torch::kFloat64), u = torch::randn({2, 5, 8}, torch::kFloat64);
  const auto p = torch::randn({8, 4}, torch::kFloat64), q = torch::randn({8, 4}, torch::kFloat64);
  const auto f = low_rank_scores(c, u, p, q);                                          // (2, 5, 4)
  for (int64_t head = 0; head < 4; ++head) {
    const auto w = torch::outer(p.select(1, head), q.select(1, head));                  // p qᵀ (8, 8)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < 5; ++t) {
        const double bilinear = torch::dot(c[b], torch::mv(w, u[b][t])).item<double>();  // cᵀ (p qᵀ) u
        EXPECT_NEAR(f[b][t][head].item<double>(), bilinear, 1e-12);
      }
  }
}

TEST(Lama, PenalRegularizerMatchesHandComputedValue) {
  // Document 1: A = [[1, 0], [0.5, 0.5]] → AAᵀ − I = [[0, .5], [.5, −.5]], ‖·‖²_F = 0.75.
  // Document 2: A = I → 0. Mean over the batch: 0.375.
  const auto attention = torch::tensor({1.0, 0.0, 0.5, 0.5, 1.0, 0.0, 0.0, 1.0}, torch::kFloat64).view({2, 2, 2});
  EXPECT_NEAR(penal_disagreement(attention).item<double>(), 0.375, 1e-12);
}

TEST(Lama, EmbeddingRegularizerMatchesHandComputedValue) {
  // Two heads: rows [1, 0] and [3, 3]: cosine 1/√2 (both ordered pairs).
  const auto two = torch::tensor({1.0, 0.0, 3.0, 3.0}, torch::kFloat64).view({1, 2, 2});
  EXPECT_NEAR(embedding_disagreement(two).item<double>(), 1.0 / std::sqrt(2.0), 1e-12);
  // Three heads [1,0], [0,2], [5,0]: cosines 0, 1, 0 → mean over the 6 ordered pairs = 2/6.
  const auto three = torch::tensor({1.0, 0.0, 0.0, 2.0, 5.0, 0.0}, torch::kFloat64).view({1, 3, 2});
  EXPECT_NEAR(embedding_disagreement(three).item<double>(), 1.0 / 3.0, 1e-12);
  // One head has no pair.
  EXPECT_EQ(embedding_disagreement(torch::ones({2, 1, 4})).item<double>(), 0.0);
}

TEST(Lama, RegularizerFollowsTheConfig) {
  auto config = test::tiny_lama_config();
  ForwardResult result;
  result.attention = {torch::tensor({1.0, 0.0, 0.5, 0.5}, torch::kFloat64).view({1, 2, 1, 2})};
  result.hidden = torch::tensor({1.0, 0.0, 3.0, 3.0}, torch::kFloat64).view({1, 2, 2});
  EXPECT_FALSE(classification_regularizer(config, result).defined());  // Regularizer::None
  config.recurrent.regularizer = Regularizer::Penal;
  config.recurrent.regularizer_weight = 0.2;
  EXPECT_NEAR(classification_regularizer(config, result).item<double>(), 0.2 * 0.75, 1e-12);
  config.recurrent.regularizer = Regularizer::Emb;
  EXPECT_NEAR(classification_regularizer(config, result).item<double>(), 0.2 / std::sqrt(2.0), 1e-12);
}

TEST(Lama, GateOfZeroRemovesExactlyThatHead) {
  auto model = tiny_lama();
  torch::NoGradGuard no_grad;
  const auto input = two_documents();
  const auto open = model->forward(input);
  for (int64_t head = 0; head < 3; ++head) {
    ForwardOptions options;
    options.head_gates = torch::ones({1, 3});
    options.head_gates[0][head] = 0.0;
    const auto gated = model->forward(input, options);
    auto expected = open.hidden.clone();
    expected.select(1, head).zero_();
    EXPECT_TRUE(torch::equal(gated.hidden, expected)) << "head " << head;
    EXPECT_TRUE(torch::allclose(gated.logits, model->mlp(expected.flatten(1)), 1e-6, 1e-6));
  }
  // Batched gates [B, 1, m]: one setting per row equals the two separate runs.
  ForwardOptions batched;
  batched.head_gates = torch::tensor({1.0, 0.0, 1.0, 0.5, 1.0, 1.0}).view({2, 1, 3});
  const auto rows = model->forward(input, batched);
  ForwardOptions first, second;
  first.head_gates = torch::tensor({1.0, 0.0, 1.0}).view({1, 3});
  second.head_gates = torch::tensor({0.5, 1.0, 1.0}).view({1, 3});
  EXPECT_TRUE(torch::allclose(rows.logits[0], model->forward(input, first).logits[0], 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(rows.logits[1], model->forward(input, second).logits[1], 1e-6, 1e-6));
  ForwardOptions wrong;
  wrong.head_gates = torch::ones({2, 3});
  EXPECT_THROW(model->forward(input, wrong), Error);
}

// LAMA's points (docs/hooks.md): what a reader sees at each is the chain's value there (float64 above),
// a write of a point's own value changes no logit by a bit, and zeroing a head at z is its gate at 0.
TEST(Lama, HookPointsHoldTheChainsValues) {
  auto model = tiny_lama("mean", 6);
  torch::NoGradGuard no_grad;
  const auto input = two_documents();
  EXPECT_EQ(hook_point_list(model->hook_points()), "attn_in, scores, pattern, z, logits");
  std::vector<std::string> names;
  for (const auto& address : model->hook_addresses()) names.push_back(address.name());
  EXPECT_EQ(names, (std::vector<std::string>{"blocks.0.attn_in", "blocks.0.attn.scores", "blocks.0.attn.pattern",
                                             "blocks.0.attn.z", "logits"}));
  std::map<HookPoint, torch::Tensor> seen;
  ForwardOptions options;
  for (const auto point : model->hook_points())
    options.hooks.add(point, -1, [&seen](const HookSite& site, const torch::Tensor& value) {
      seen[site.point] = value.clone();
      return torch::Tensor();
    });
  const auto result = model->forward(input, options);
  const auto embedded = model->embed(input);
  const auto reference = reference_chain(*model, embedded, input.attention_mask);  // f, A, S
  EXPECT_TRUE(torch::equal(seen.at(HookPoint::AttnIn), embedded.narrow(-1, 0, 8)));
  const auto pattern = f64(seen.at(HookPoint::Pattern));
  ASSERT_EQ(pattern.sizes(), (std::vector<int64_t>{2, 3, 1, 7}));
  EXPECT_TRUE(torch::allclose(pattern.squeeze(2), reference[1], 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(torch::softmax(f64(seen.at(HookPoint::Scores)), -1), pattern, 1e-6, 1e-7));
  EXPECT_TRUE(torch::allclose(f64(seen.at(HookPoint::Z)).squeeze(2), reference[2], 1e-5, 1e-6));
  EXPECT_TRUE(torch::equal(seen.at(HookPoint::Logits), result.logits));

  const auto plain = model->forward(input).logits;
  for (const auto point : model->hook_points()) {
    ForwardOptions written;
    written.hooks.add(point, -1, [](const HookSite&, const torch::Tensor& value) { return value.clone(); });
    EXPECT_TRUE(torch::equal(model->forward(input, written).logits, plain)) << hook_point_name(point);
  }
  ForwardOptions zeroed, gated;
  zeroed.hooks.add(HookPoint::Z, 0, [](const HookSite&, const torch::Tensor& z) {
    auto changed = z.clone();
    changed.select(1, 1).zero_();
    return changed;
  });
  gated.head_gates = torch::tensor({1.0, 0.0, 1.0}).view({1, 3});
  EXPECT_TRUE(torch::equal(model->forward(input, zeroed).logits, model->forward(input, gated).logits));
}

}  // namespace
}  // namespace aw
