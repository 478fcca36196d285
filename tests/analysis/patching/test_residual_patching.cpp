// tests/analysis/patching/test_residual_patching.cpp — `patch --hook resid_post` and the other
// residual-stream points: each layer's stream patched position by position. The logits at the last
// position read the last layer's output there alone, so patching the last layer's resid_post restores
// everything at the last position (patched == clean) and nothing elsewhere (patched == corrupted); the
// first layer's input where the prompts agree is the corrupted run's own. Prompts of several lengths
// need --position; with it a layer has one unit.
#include "analysis/patching/head_patching.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

using test::error_of;
using test::TempDir;

// One length, differing at position 2; answer and foil the two tokens there.
std::vector<PatchPair> pairs() {
  return {{{2, 3, 4, 5, 6, 7}, {2, 3, 9, 5, 6, 7}, 4, 9, 1},
          {{8, 3, 4, 6, 6, 2}, {8, 3, 10, 6, 6, 2}, 4, 10, 2},
          {{5, 5, 6, 7, 2, 3}, {5, 5, 11, 7, 2, 3}, 6, 11, 3}};
}

class ResidualPatching : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_checkpoint(dir_.file("model"), test::tiny_config("transformer_lm"));
    loaded_ = load_checkpoint(dir_.file("model"));
  }
  PatchResult patch(HookPoint point, std::vector<PatchPair> prompts, int64_t position = -1) {
    PatchSettings settings;
    settings.point = point;
    settings.position = position;
    settings.batch = 2;  // two batches: units join across them
    return patch_heads(*loaded_.model, prompts, settings);
  }
  TempDir dir_;
  LoadedModel loaded_;
};

TEST_F(ResidualPatching, TheLastLayersOutputRestoresAllAtTheLastPositionAndNothingBefore) {
  const auto result = patch(HookPoint::ResidPost, pairs());
  const int64_t last_layer = loaded_.config.n_blocks - 1;
  EXPECT_EQ(result.positions, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(result.heads_per_layer, std::vector<int64_t>(static_cast<size_t>(loaded_.config.n_blocks), 6));
  EXPECT_TRUE(torch::allclose(result.patched[last_layer][5], result.clean, 1e-6, 1e-6));
  for (int64_t position = 0; position < 5; ++position)
    EXPECT_TRUE(torch::allclose(result.patched[last_layer][position], result.corrupted, 1e-6, 1e-6)) << position;
  EXPECT_FALSE(result.dla_refused.empty());  // positions, not heads
}

TEST_F(ResidualPatching, TheFirstLayersInputWhereThePromptsAgreeIsTheCorruptedRunsOwn) {
  const auto result = patch(HookPoint::ResidPre, pairs());
  for (const int64_t position : {0, 1, 3, 4, 5})
    EXPECT_TRUE(torch::allclose(result.patched[0][position], result.corrupted, 1e-6, 1e-6)) << position;
  // The differing token is the whole difference: patching it in is the clean run.
  EXPECT_TRUE(torch::allclose(result.patched[0][2], result.clean, 1e-6, 1e-6));
}

TEST_F(ResidualPatching, PromptsOfSeveralLengthsNeedAPosition) {
  auto prompts = pairs();
  prompts.push_back({{8, 3, 4}, {8, 10, 4}, 3, 10, 7});
  EXPECT_EQ(error_of([&] { patch(HookPoint::ResidMid, prompts); }),
            "patching at 'resid_mid' position by position needs prompts of one length: line 1 has 6 tokens, line 7 3; "
            "or choose one position (--position)");
  const auto result = patch(HookPoint::ResidMid, prompts, 1);
  EXPECT_EQ(result.positions, std::vector<int64_t>{1});
  EXPECT_EQ(result.heads_per_layer, std::vector<int64_t>(static_cast<size_t>(loaded_.config.n_blocks), 1));
  EXPECT_TRUE(torch::isfinite(result.patched.narrow(1, 0, 1)).all().item<bool>());
}

}  // namespace
}  // namespace aw
