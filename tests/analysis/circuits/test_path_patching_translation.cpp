// tests/analysis/circuits/test_path_patching_translation.cpp — path patching on a translation model, by
// attention kind, on a random pre-norm transformer_mt in float64: a last-layer decoder or cross head's
// path to the logits equals its z patched with everything after it in the layer held corrupted (hooks
// alone); an encoder head's path to cross-attention's keys and values equals the keys and values
// computed by hand from its write (its slice of W_O on its z's change) added to the encoder's last
// state, through the final norm; pairs without a path are NaN; a prompt patched into itself restores
// nothing; rows per forward change no number; post-norm models and receivers no head writes to are refused.
#include "analysis/circuits/path_patching.h"
#include "analysis/circuits/translation_path_patching.h"
#include "models/nn/model_config.h"
#include "models/nn/translation.h"
#include "tests/support/random_translation.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

namespace aw {
namespace {

using torch::indexing::Slice;

std::shared_ptr<TranslationTransformerImpl> random_translation(const std::string& norm = "pre") {
  return test::random_translation(5, norm);
}

using test::translation_pair;

// Two pairs of one length and one of another (two batches).
std::vector<PatchPair> pairs() {
  return {translation_pair({5, 9, 13, 7, 2}, {5, 21, 13, 7, 2}, {1, 11, 17}),
          translation_pair({6, 8, 10, 12, 2}, {6, 8, 30, 12, 2}, {1, 15, 19}),
          translation_pair({5, 9, 13, 2}, {25, 9, 13, 2}, {1, 11})};
}

ModelInput input_of(const std::vector<int64_t>& source, const std::vector<int64_t>& target) {
  return test::translation_input(source, target);
}

double metric(const ForwardResult& result, const PatchPair& pair) {
  const auto last = result.logits[0][result.logits.size(1) - 1];
  return (last[pair.answer] - last[pair.foil]).item<double>();
}

// The value at `point` of `block` in a forward of `input`.
torch::Tensor read_at(AttentionModel& model, const ModelInput& input, HookPoint point, int64_t block) {
  return test::value_at(model, input, point, block);
}

TEST(PathPatchingTranslation, LastLayerPathsToTheLogitsEqualZPatchedWithTheRestOfTheLayerFrozen) {
  auto model = random_translation();
  PathPatchSettings settings;
  settings.senders = {{5, {0}}, {5, {1}}, {4, {1}}, {3, {0}}};  // cross 2.1, cross 2.2, dec 2.2, cross 1.1
  const auto result = path_patch(*model, pairs(), settings);
  ASSERT_EQ(result.patched.size(0), 4);
  // The paths move m: equal to the corrupted run they would say nothing.
  EXPECT_GT((result.patched.squeeze(1) - result.corrupted).abs().min().item<double>(), 1e-4);
  c10::InferenceMode inference;
  const auto all = pairs();
  for (size_t p = 0; p < all.size(); ++p) {
    const auto& pair = all[p];
    const auto clean = input_of(pair.clean, pair.target), corrupted = input_of(pair.corrupted, pair.target);
    const auto mlp_out = read_at(*model, corrupted, HookPoint::MlpOut, 5);
    const auto cross_out = read_at(*model, corrupted, HookPoint::AttnOut, 5);
    const auto mlp_out_1 = read_at(*model, corrupted, HookPoint::MlpOut, 3);
    for (size_t s = 0; s < settings.senders.size(); ++s) {
      const auto block = settings.senders[s].layer, head = settings.senders[s].heads.front();
      const auto clean_z = read_at(*model, clean, HookPoint::Z, block);
      ForwardOptions options;
      options.hooks.add(HookPoint::Z, block, [&](const HookSite&, const torch::Tensor& z) {
        auto patched = z.clone();
        patched.select(1, head).copy_(clean_z.select(1, head));
        return patched;
      });
      options.hooks.add(HookPoint::MlpOut, 5, [&](const HookSite&, const torch::Tensor&) { return mlp_out; });
      if (block == 4) options.hooks.add(HookPoint::AttnOut, 5, [&](const HookSite&, const torch::Tensor&) { return cross_out; });
      if (block == 3) {
        // cross 1.1's write also reaches layer 2's blocks: hold each at its corrupted output too.
        options.hooks.add(HookPoint::MlpOut, 3, [&](const HookSite&, const torch::Tensor&) { return mlp_out_1; });
        const auto self_out = read_at(*model, corrupted, HookPoint::AttnOut, 4);
        options.hooks.add(HookPoint::AttnOut, 4, [self_out](const HookSite&, const torch::Tensor&) { return self_out; });
        options.hooks.add(HookPoint::AttnOut, 5, [&](const HookSite&, const torch::Tensor&) { return cross_out; });
      }
      const auto expected = metric(model->forward(corrupted, options), pair);
      EXPECT_NEAR(result.patched[s][0][p].item<double>(), expected, 1e-10) << "sender " << s << " pair " << p;
    }
    EXPECT_NEAR(result.clean[p].item<double>(), metric(model->forward(clean), pair), 1e-12);
    EXPECT_NEAR(result.corrupted[p].item<double>(), metric(model->forward(corrupted), pair), 1e-12);
  }
}

TEST(PathPatchingTranslation, EncoderHeadsReachCrossKeysAndValuesThroughTheFinalNorm) {
  auto model = random_translation();
  PathPatchSettings settings;
  settings.senders = {{0, {1}}, {1, {0}}};                                          // enc 1.2, enc 2.1
  settings.receivers = {{PathKind::Key, 5, {1}}, {PathKind::Value, 3, {0}}, {PathKind::Query, 1, {0}}};  // enc 2.1's q
  const auto result = path_patch(*model, pairs(), settings);
  EXPECT_GT((result.patched - result.corrupted).abs().nan_to_num(0).amax({0, 1}).min().item<double>(), 1e-4);
  c10::InferenceMode inference;
  auto& first = *model->encoder[0]->as<TransformerBlockImpl>();
  auto& second = *model->encoder[1]->as<TransformerBlockImpl>();
  const int64_t dh = 4;
  const auto all = pairs();
  for (size_t p = 0; p < all.size(); ++p) {
    const auto& pair = all[p];
    const auto clean = input_of(pair.clean, pair.target), corrupted = input_of(pair.corrupted, pair.target);
    const auto final_state = read_at(*model, corrupted, HookPoint::ResidPost, 1);  // before the encoder's final norm
    const auto entering = read_at(*model, corrupted, HookPoint::ResidPre, 1);
    for (size_t s = 0; s < settings.senders.size(); ++s) {
      const auto block = settings.senders[s].layer, head = settings.senders[s].heads.front();
      auto& attention = *(block == 0 ? first : second).attn;
      // The write by hand: the change of the head's z through its slice of W_O.
      const auto change = read_at(*model, clean, HookPoint::Z, block).select(1, head) -
                          read_at(*model, corrupted, HookPoint::Z, block).select(1, head);  // [1, n, dh]
      const auto write = torch::matmul(change, attention.o->weight.index({Slice(), Slice(head * dh, (head + 1) * dh)}).t());
      const auto memory = model->enc_ln_f(final_state + write);
      for (size_t r = 0; r < settings.receivers.size(); ++r) {
        const auto& receiver = settings.receivers[r];
        if (receiver.kind == PathKind::Query && block == 1) {  // no path from enc 2 to its own queries
          EXPECT_TRUE(std::isnan(result.patched[s][r][p].item<double>()));
          continue;
        }
        const auto h = receiver.heads.front();
        torch::Tensor replaced;
        HookPoint point = HookPoint::Q;
        if (receiver.kind == PathKind::Query) {  // enc 1.2 into enc 2.1's queries: its write on the state entering
          const auto q = second.attn->q(second.ln_1(entering + write));
          replaced = q.index({Slice(), Slice(), Slice(h * dh, (h + 1) * dh)});
        } else {
          auto& cross = *model->decoder[(receiver.layer - 3) / 2]->as<DecoderBlockImpl>()->cross_attn;
          const auto projected = receiver.kind == PathKind::Key ? cross.k(memory) : cross.v(memory);
          replaced = projected.index({Slice(), Slice(), Slice(h * dh, (h + 1) * dh)});
          point = receiver.kind == PathKind::Key ? HookPoint::K : HookPoint::V;
        }
        ForwardOptions options;
        options.hooks.add(point, receiver.layer, [&](const HookSite&, const torch::Tensor& value) {
          auto patched = value.clone();
          patched.select(1, h).copy_(replaced);
          return patched;
        });
        const auto expected = metric(model->forward(corrupted, options), pair);
        EXPECT_NEAR(result.patched[s][r][p].item<double>(), expected, 1e-10) << "sender " << s << " receiver " << r;
      }
    }
  }
}

TEST(PathPatchingTranslation, OnlyTheStreamAReceiverReadsCarriesAPath) {
  auto model = random_translation();
  const auto& config = model->config();
  const PathReceiver logits{}, enc_q{PathKind::Query, 1, {0}}, dec_k{PathKind::Key, 4, {0}},
      cross_q{PathKind::Query, 5, {0}}, cross_v{PathKind::Value, 3, {0}};
  for (const auto& [sender, receiver, exists] : std::vector<std::tuple<int64_t, PathReceiver, bool>>{
           {0, logits, false}, {2, logits, true}, {5, logits, true}, {0, enc_q, true}, {1, enc_q, false},
           {0, dec_k, false}, {2, dec_k, true}, {3, dec_k, true}, {4, dec_k, false}, {1, cross_q, false},
           {4, cross_q, true}, {3, cross_q, true}, {0, cross_v, true}, {1, cross_v, true}, {2, cross_v, false}})
    EXPECT_EQ(path_exists(config, PathSender{sender, {0}}, receiver), exists) << sender << " → " << receiver.layer;
  // Every pair of a full run: NaN exactly where no path is.
  PathPatchSettings settings;
  settings.receivers = {logits, enc_q, dec_k, cross_q, cross_v};
  const auto result = path_patch(*model, pairs(), settings);
  for (int64_t s = 0; s < result.patched.size(0); ++s)
    for (int64_t r = 0; r < result.patched.size(1); ++r)
      EXPECT_EQ(std::isnan(result.patched[s][r][0].item<double>()),
                !path_exists(config, result.senders[s], result.receivers[r]));
  // The rows per forward change no number.
  settings.rows = 1;
  const auto one_row = path_patch(*model, pairs(), settings);
  EXPECT_TRUE(torch::allclose(result.patched.nan_to_num(0), one_row.patched.nan_to_num(0), 0, 1e-12));
}

TEST(PathPatchingTranslation, APromptPatchedIntoItselfRestoresNothing) {
  auto model = random_translation();
  auto same = pairs();
  for (auto& pair : same) pair.corrupted = pair.clean;
  PathPatchSettings settings;
  settings.receivers = {PathReceiver{}, {PathKind::Key, 3, {0, 1}}, {PathKind::Query, 4, {1}}, {PathKind::Value, 1, {0}}};
  const auto result = path_patch(*model, same, settings);
  for (int64_t s = 0; s < result.patched.size(0); ++s)
    for (int64_t r = 0; r < result.patched.size(1); ++r)
      for (int64_t p = 0; p < result.patched.size(2); ++p) {
        const auto value = result.patched[s][r][p].item<double>();
        if (!std::isnan(value)) EXPECT_NEAR(value, result.corrupted[p].item<double>(), 1e-12);
      }
}

TEST(PathPatchingTranslation, RefusesPostNormModelsAndReceiversNoHeadWritesTo) {
  auto error_of = [](const ModelConfig& config, const PathPatchSettings& settings) {
    try {
      check_path_patch(config, settings);
    } catch (const std::exception& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const auto post = random_translation("post");
  EXPECT_EQ(error_of(post->config(), {}),
            "path patching needs pre-norm blocks; transformer_mt normalises after the add, so a head's write reaches "
            "the later blocks only through the norm after it, not added to their input");
  const auto pre = random_translation();
  PathPatchSettings settings;
  settings.receivers = {{PathKind::Query, 0, {0}}};
  EXPECT_EQ(error_of(pre->config(), settings), "receiver q enc1 has no earlier heads to send to it");
  settings.receivers = {{PathKind::Key, 2, {0}}};
  EXPECT_EQ(error_of(pre->config(), settings), "receiver k dec1 has no earlier heads to send to it");
  settings.receivers = {{PathKind::Query, 3, {2}}};
  EXPECT_EQ(error_of(pre->config(), settings), "q receiver cross1.3: cross1 has 2 heads");
  EXPECT_EQ(sender_name({3, {0, 1}}, pre->config()), "cross1.1+cross1.2");
  EXPECT_EQ(block_name(pre->config(), 4), "dec2");
}

}  // namespace
}  // namespace aw
