// tests/analysis/logit_lens/test_lens_heads.cpp — the logit lens per head (LogitLensSettings::heads):
// each head's write at a position through the final norm and the unembedding, checked against a float64
// computation of its own from the hook points — the head's write read at head_out, the last layer's
// resid_post for the norm's scale, the norm's weight and the unembedding — on a RMSNorm family (llama)
// and a LayerNorm one (gpt_neox); a head switched off writes nothing; a model whose heads' writes do
// not reach the logits through the final norm alone is refused before anything runs.
#include "analysis/logit_lens/logit_lens.h"
#include "models/checkpoint/checkpoint.h"
#include "models/nn/hooks.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::vector<int64_t> kIds = {5, 9, 13, 2, 17, 9, 13, 4};

torch::Tensor parameter(AttentionModel& model, const std::string& name) {
  for (const auto& item : model.module().named_parameters())
    if (item.key() == name) return item.value().detach().to(torch::kFloat64);
  return {};
}

// [L][H, n, d] each head's write, and the last layer's output [n, d], in float64.
struct Writes {
  std::vector<torch::Tensor> heads;
  torch::Tensor last;
};

Writes writes_of(AttentionModel& model) {
  Writes writes;
  const int64_t layers = model.config().n_blocks;
  writes.heads.resize(static_cast<size_t>(layers));
  ForwardOptions options;
  options.hooks.add(HookPoint::HeadOut, -1, [&](const HookSite& site, const torch::Tensor& value) {
    writes.heads[site.layer] = value.select(0, 0).to(torch::kFloat64);
    return torch::Tensor();
  });
  options.hooks.add(HookPoint::ResidPost, layers - 1, [&](const HookSite&, const torch::Tensor& value) {
    writes.last = value.select(0, 0).to(torch::kFloat64);
    return torch::Tensor();
  });
  ModelInput input;
  input.input_ids = torch::tensor(kIds, torch::kLong).unsqueeze(0);
  torch::InferenceMode inference;
  model.forward(input, options);
  return writes;
}

class LensHeads : public ::testing::TestWithParam<std::string> {};

TEST_P(LensHeads, EachHeadsLogitsEqualItsWriteThroughTheNormAndTheUnembeddingInFloat64) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  auto& model = *loaded.model;
  const auto& config = loaded.config;
  LogitLensSettings settings;
  settings.positions = {1, 4, 7};
  settings.k = 3;
  settings.heads = true;
  const auto result = logit_lens(model, kIds, settings);
  const int64_t layers = config.n_blocks;
  ASSERT_EQ(result.heads.size(), static_cast<size_t>(layers * config.heads_per_block[0] * 3));

  const auto writes = writes_of(model);
  const auto weight = parameter(model, "ln_f.weight");
  auto unembedding = parameter(model, "lm_head.weight");
  if (!unembedding.defined()) unembedding = parameter(model, "tok_emb.weight");
  const bool layer_norm = config.decoder.norm == NormKind::LayerNorm;
  for (const auto& cell : result.heads) {
    const auto where = GetParam() + " layer " + std::to_string(cell.layer) + " head " + std::to_string(cell.head) +
                       " position " + std::to_string(cell.position);
    const auto write = writes.heads[cell.layer - 1][cell.head][cell.position];             // (d)
    const auto state = writes.last[cell.position];
    const auto scale = layer_norm ? torch::rsqrt(state.var(-1, false) + config.layer_norm_eps)
                                  : torch::rsqrt(state.pow(2).mean() + config.layer_norm_eps);
    const auto centred = layer_norm ? write - write.mean() : write;
    const auto logits = torch::matmul(unembedding, centred * scale * weight);                // (V)
    const auto next = kIds[static_cast<size_t>(cell.position) + 1 < kIds.size() ? cell.position + 1 : 0];
    if (cell.position + 1 < static_cast<int64_t>(kIds.size())) {
      EXPECT_EQ(cell.scored, next) << where;
      EXPECT_NEAR(cell.dla, logits[next].item<double>(), 1e-4) << where;
    } else {
      EXPECT_EQ(cell.scored, -1) << where;
    }
    ASSERT_EQ(cell.top.size(), 3u);
    const auto best = logits.topk(2);
    const auto best_values = std::get<0>(best);
    EXPECT_NEAR(cell.top_logit[0], best_values[0].item<double>(), 1e-4) << where;
    if ((best_values[0] - best_values[1]).item<double>() > 1e-3)  // a clear first: the same token
      EXPECT_EQ(cell.top[0], std::get<1>(best)[0].item<int64_t>()) << where;
  }
}

INSTANTIATE_TEST_SUITE_P(Families, LensHeads, ::testing::Values("llama", "gpt_neox"));

TEST(LensHeadsGates, AHeadSwitchedOffWritesNothing) {
  const auto loaded = load_checkpoint(kModels + "llama");
  const auto& config = loaded.config;
  LogitLensSettings settings;
  settings.positions = {2};
  settings.k = 1;
  settings.heads = true;
  ForwardOptions forward;
  forward.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  forward.head_gates.index_put_({0, 1}, 0.0);
  const auto result = logit_lens(*loaded.model, kIds, settings, forward);
  for (const auto& cell : result.heads)
    if (cell.layer == 1 && cell.head == 1) EXPECT_EQ(cell.dla, 0.0);
    else EXPECT_NE(cell.dla, 0.0);
}

TEST(LensHeadsRefused, AModelThatNormalisesTheAttentionsOutputIsRefusedBeforeItRuns) {
  const auto loaded = load_checkpoint(kModels + "gemma2");
  LogitLensSettings settings;
  settings.positions = {1};
  settings.heads = true;
  int calls = 0;
  EXPECT_EQ(test::error_of([&] {
              logit_lens(*loaded.model, kIds, settings, {}, [&](int64_t, int64_t) { return ++calls, true; });
            }),
            "direct logit attribution needs each head's write to reach the logits through the final norm alone; a "
            "gemma2 model normalises the attention's output or soft-caps its logits");
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace aw
