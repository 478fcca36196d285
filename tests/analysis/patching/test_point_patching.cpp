// tests/analysis/patching/test_point_patching.cpp — `patch --hook` (PatchSettings::point): output patching
// at q, k, v or head_out instead of z. A head's write is its context through its slice of the output
// projection, so patching head_out restores what patching z does; in the first layer a query or key
// depends on its own token alone, so patching it where the prompts agree changes nothing; K and V are
// patched per key/value head.
#include "analysis/patching/head_patching.h"
#include "models/checkpoint/checkpoint.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace aw {
namespace {

using test::error_of;
using test::max_difference;
using test::TempDir;

std::vector<PatchPair> pairs() {
  return {{{2, 3, 4, 5, 6, 7}, {2, 3, 9, 5, 6, 7}, 4, 9, 1},
          {{8, 3, 4}, {8, 10, 4}, 3, 10, 2},
          {{5, 5, 6, 7, 2}, {5, 11, 6, 7, 2}, 5, 11, 3}};
}

class PointPatching : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_tiny_checkpoint(dir_.file("model"), test::tiny_config("transformer_lm"));
    loaded_ = load_checkpoint(dir_.file("model"));
  }
  PatchResult patch(HookPoint point, int64_t position = -1) {
    PatchSettings settings;
    settings.point = point;
    settings.position = position;
    return patch_heads(*loaded_.model, pairs(), settings);
  }
  TempDir dir_;
  LoadedModel loaded_;
};

TEST_F(PointPatching, AHeadsWriteRestoresWhatItsContextDoes) {
  for (const int64_t position : {-1, 1}) {
    const auto at_z = patch(HookPoint::Z, position), at_write = patch(HookPoint::HeadOut, position);
    EXPECT_TRUE(torch::allclose(at_write.patched, at_z.patched, 1e-5, 1e-5))
        << "position " << position << ": " << max_difference(at_write.patched, at_z.patched);
    // Reading head_out sums the output projection head by head: the clean run's last bits may move.
    EXPECT_TRUE(torch::allclose(at_write.clean, at_z.clean, 1e-6, 1e-6));
    EXPECT_TRUE(torch::equal(at_write.corrupted, at_z.corrupted));
  }
}

// Position 0 holds the same token in both prompts of every pair: the first layer's query and key there
// are the corrupted run's own, so patching them is the corrupted run.
TEST_F(PointPatching, AFirstLayerQueryOrKeyWhereThePromptsAgreeChangesNothing) {
  for (const auto point : {HookPoint::Q, HookPoint::K, HookPoint::V}) {
    const auto result = patch(point, 0);
    for (int64_t head = 0; head < result.heads_per_layer[0]; ++head)
      EXPECT_TRUE(torch::allclose(result.patched[0][head], result.corrupted, 1e-6, 1e-6))
          << hook_point_name(point) << " head " << head;
  }
  // Where they differ (position 2 of the first pair), some head's key matters.
  const auto differing = patch(HookPoint::K, 2);
  EXPECT_GT((differing.patched[0].narrow(0, 0, 3).select(1, 0) - differing.corrupted[0]).abs().max().item<double>(), 1e-6);
}

TEST(PointPatchingGrouped, KeysAndValuesArePatchedPerKeyValueHead) {
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/phi3_grouped");
  PatchSettings settings;
  settings.point = HookPoint::K;
  const std::vector<PatchPair> grouped = {{{5, 9, 13, 2, 17}, {5, 9, 14, 2, 17}, 20, 21, 1}};
  const auto result = patch_heads(*loaded.model, grouped, settings);
  EXPECT_EQ(result.heads_per_layer, (std::vector<int64_t>{2, 2}));  // 4 query heads over 2 key/value heads
  EXPECT_TRUE(torch::isfinite(result.patched.narrow(1, 0, 2)).all().item<bool>());
  EXPECT_TRUE(torch::isnan(result.patched.narrow(1, 2, 2)).all().item<bool>());
  // A key/value head's effect is not one query head's write: no DLA beside it.
  EXPECT_EQ(result.dla_refused, "no DLA: patching at 'k' patches key/value heads, each read by several query heads");
}

TEST_F(PointPatching, APointThatIsNotAHeadsInputOrOutputIsRefused) {
  const std::string offered = "is not offered: a head's z, q, k, v or head_out, or a layer's residual-stream point "
                              "(resid_pre … resid_post); the pattern: --kind pattern";
  EXPECT_EQ(error_of([&] { patch(HookPoint::Pattern); }), "patching at 'pattern' " + offered);
  EXPECT_EQ(error_of([&] { patch(HookPoint::Logits); }), "patching at 'logits' " + offered);
}

}  // namespace
}  // namespace aw
