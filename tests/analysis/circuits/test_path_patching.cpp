// tests/analysis/circuits/test_path_patching.cpp — path patching: a last-layer sender's path to the
// logits equals its output patched with the last MLP held at the corrupted run (by hooks alone); batching
// and refusals; against plain PyTorch with hooks on Hugging Face's GPT-2, Llama and Gemma 2
// (tests/fixtures/circuits/, scripts/fixtures/make_circuit_fixtures.py); and on sample_data/induction_lm,
// whose circuit is known.
#include "analysis/circuits/path_patching.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "tests/support/circuit_pairs.h"
#include "tests/support/random_transformer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kReferences = AW_SOURCE_DIR "/tests/fixtures/circuits/";

ModelConfig small_config() { return test::small_circuit_config(); }
std::vector<PatchPair> small_pairs() { return test::small_circuit_pairs(); }

// m of one pair run through `model` under `options`.
double pair_metric(TransformerImpl& model, const std::vector<int64_t>& ids, const PatchPair& pair,
                   const ForwardOptions& options) {
  c10::InferenceMode inference;
  const auto logits = model.forward(test::input_of(ids), options).logits[0][static_cast<int64_t>(ids.size()) - 1];
  return (logits[pair.answer] - logits[pair.foil]).item<double>();
}

// A last-layer sender's direct path, by hooks alone: the corrupted run with the head's z taken from the
// clean run and the last MLP's output held at the corrupted run's (the only other path from it).
TEST(PathPatching, ALastLayerSendersPathToTheLogitsIsItsOutputPatchedWithTheMlpFrozen) {
  auto model = test::random_model(small_config(), 6, /*every_parameter=*/true);
  const auto pairs = small_pairs();
  PathPatchSettings settings;
  settings.batch = 1;  // the length-5 pairs one by one, and the length-3 pair alone
  settings.rows = 3;
  const auto paths = path_patch(*model, pairs, settings);
  ASSERT_EQ(paths.receivers.size(), 1u);
  settings.senders = {{2, {0, 1}}};  // both heads of layer 3 as one sender
  const auto together = path_patch(*model, pairs, settings);
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto& pair = pairs[p];
    torch::Tensor clean_z, corrupted_mlp;
    ForwardOptions read;
    read.hooks.add(HookPoint::Z, 2, [&](const HookSite&, const torch::Tensor& z) { return clean_z = z.clone(), torch::Tensor(); });
    const double clean = pair_metric(*model, pair.clean, pair, read);
    ForwardOptions corrupted;
    corrupted.hooks.add(HookPoint::MlpOut, 2, [&](const HookSite&, const torch::Tensor& x) {
      return corrupted_mlp = x.clone(), torch::Tensor();
    });
    EXPECT_NEAR(paths.clean[static_cast<int64_t>(p)].item<double>(), clean, 1e-5);
    EXPECT_NEAR(paths.corrupted[static_cast<int64_t>(p)].item<double>(), pair_metric(*model, pair.corrupted, pair, corrupted),
                1e-5);
    for (int64_t h = 0; h < 2; ++h) {
      ForwardOptions direct;
      direct.hooks.add(HookPoint::Z, 2, [&](const HookSite&, const torch::Tensor& z) {
        auto patched = z.clone();
        patched.select(1, h).copy_(clean_z.select(1, h));
        return patched;
      });
      direct.hooks.add(HookPoint::MlpOut, 2, [&](const HookSite&, const torch::Tensor&) { return corrupted_mlp; });
      EXPECT_NEAR(paths.patched[4 + h][0][static_cast<int64_t>(p)].item<double>(),
                  pair_metric(*model, pair.corrupted, pair, direct), 1e-5)
          << "pair " << p << " head 3." << h + 1;
    }
    ForwardOptions both;
    both.hooks.add(HookPoint::Z, 2, [&](const HookSite&, const torch::Tensor&) { return clean_z; });
    both.hooks.add(HookPoint::MlpOut, 2, [&](const HookSite&, const torch::Tensor&) { return corrupted_mlp; });
    EXPECT_NEAR(together.patched[0][0][static_cast<int64_t>(p)].item<double>(), pair_metric(*model, pair.corrupted, pair, both),
                1e-5) << "pair " << p << " heads 3.1+3.2";
  }
}

TEST(PathPatching, ReceiversOfALayerAndTheirBatchingAgree) {
  auto model = test::random_model(small_config(), 7, /*every_parameter=*/true);
  const auto pairs = small_pairs();
  PathPatchSettings one;
  one.receivers = layer_receivers(small_config(), 2);
  one.receivers.insert(one.receivers.begin(), PathReceiver{});
  one.rows = 1;
  one.batch = 1;
  PathPatchSettings many = one;
  many.rows = 1000;
  many.batch = 8;
  const auto a = path_patch(*model, pairs, one), b = path_patch(*model, pairs, many);
  ASSERT_EQ(a.receivers.size(), 1u + 2 + 2 + 2);  // logits, then q, k, v of layer 3's two heads
  EXPECT_EQ(a.receivers[1].kind, PathKind::Query);
  EXPECT_EQ(a.receivers[3].kind, PathKind::Key);
  // Senders 0–3 (layers 1 and 2) reach layer 3's receivers; layer 3's own heads do not.
  for (int64_t s = 0; s < 6; ++s)
    for (int64_t r = 1; r < 7; ++r) EXPECT_EQ(std::isnan(a.patched[s][r][0].item<double>()), s >= 4) << s << " " << r;
  EXPECT_TRUE(torch::allclose(a.patched.nan_to_num(0), b.patched.nan_to_num(0), 1e-6, 1e-6));
  // A pair whose prompts are one text restores nothing on any path.
  auto same = pairs;
  same[0].corrupted = same[0].clean;
  const auto nothing = path_patch(*model, same, one);
  for (int64_t s = 0; s < 4; ++s)
    for (int64_t r = 0; r < 7; ++r)
      EXPECT_NEAR(nothing.patched[s][r][0].item<double>(), nothing.corrupted[0].item<double>(), 1e-5);
}

TEST(PathPatching, RefusesReceiverLayersTheModelLacksOrThatHaveNoSendersAndPostNormModels) {
  auto model = test::random_model(small_config(), 6);
  PathPatchSettings settings;
  settings.receivers = {{PathKind::Query, 3, {0}}};
  try {
    path_patch(*model, small_pairs(), settings);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "receiver layer 4: the model has layers 1 to 3");
  }
  settings.receivers = {{PathKind::Query, 0, {0}}};
  try {
    path_patch(*model, small_pairs(), settings);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "receiver layer 1 has no earlier heads to send to it");
  }
  settings.receivers = {{PathKind::Key, 2, {0, 2}}};
  try {
    path_patch(*model, small_pairs(), settings);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "k receiver 3.1+3.3: layer 3 has 2 key/value heads");
  }
  // A post-norm model: a head's write is normalised with the rest before any later layer reads it.
  auto post = small_config();
  post.norm = NormPlacement::Post;
  try {
    check_path_patch(post, {});
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "path patching needs pre-norm blocks; transformer_lm normalises after the add, so a "
                               "head's write reaches the later blocks only through the norm after it, not added to "
                               "their input");
  }
}

// Every decoder family of tests/fixtures/hf_models: the last layer's heads, sent together, reach the
// logits as their z patched from the clean run with the last MLP held corrupted (hooks alone), and a
// layer-1 head's paths into the last layer's q, k and v are finite and vanish for a pair with one prompt.
class PathPatchingFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(PathPatchingFamilies, TheLastLayersDirectPathIsItsOutputWithTheMlpFrozen) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  auto& model = *loaded.model;
  const auto& config = loaded.config;
  const auto last = config.n_blocks - 1;
  torch::manual_seed(11);
  const auto ids = torch::randint(3, config.vocab_size, {9}, torch::kLong);
  std::vector<int64_t> clean(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + 7);
  auto corrupted = clean;
  corrupted[2] = ids[7].item<int64_t>();
  const PatchPair pair{clean, corrupted, ids[8].item<int64_t>(), clean[0] == ids[8].item<int64_t>() ? 1 : clean[0], 1};
  PathPatchSettings settings;
  std::vector<int64_t> heads(static_cast<size_t>(config.heads_per_block[last]));
  std::iota(heads.begin(), heads.end(), 0);
  settings.senders = {{last, heads}, {0, {0}}, {0, {0}}};
  settings.receivers = {PathReceiver{}, {PathKind::Query, last, {0}}, {PathKind::Key, last, {0}}, {PathKind::Value, last, {0}}};
  const auto result = path_patch(model, {pair, {clean, clean, pair.answer, pair.foil, 2}}, settings);
  auto metric = [&](const std::vector<int64_t>& prompt, const ForwardOptions& options) {
    c10::InferenceMode inference;
    const auto logits = model.forward(test::input_of(prompt), options).logits[0][6];
    return (logits[pair.answer] - logits[pair.foil]).item<double>();
  };
  torch::Tensor clean_z, corrupted_mlp;
  ForwardOptions read_z;
  read_z.hooks.add(HookPoint::Z, last, [&](const HookSite&, const torch::Tensor& z) { return clean_z = z.clone(), torch::Tensor(); });
  metric(clean, read_z);
  ForwardOptions read_mlp;
  read_mlp.hooks.add(HookPoint::MlpOut, last, [&](const HookSite&, const torch::Tensor& x) {
    return corrupted_mlp = x.clone(), torch::Tensor();
  });
  metric(corrupted, read_mlp);
  ForwardOptions direct;
  direct.hooks.add(HookPoint::Z, last, [&](const HookSite&, const torch::Tensor&) { return clean_z; });
  direct.hooks.add(HookPoint::MlpOut, last, [&](const HookSite&, const torch::Tensor&) { return corrupted_mlp; });
  const double expected = metric(corrupted, direct);
  EXPECT_NEAR(result.patched[0][0][0].item<double>(), expected, 1e-4 * std::max(1.0, std::abs(expected)));
  for (int64_t r = 1; r < 4; ++r) {
    EXPECT_TRUE(std::isfinite(result.patched[1][r][0].item<double>())) << r;
    EXPECT_NEAR(result.patched[1][r][1].item<double>(), result.corrupted[1].item<double>(), 1e-4) << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Decoders, PathPatchingFamilies,
                         ::testing::Values("llama", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential", "qwen3",
                                           "gemma2", "gemma3", "phi3_grouped", "olmo2", "mixtral", "qwen3_moe", "olmoe",
                                           "gpt_oss"));

// ---- The known circuit -----------------------------------------------------------------------------

// sample_data/induction_lm: previous-token heads 1.3 and 1.1, induction heads 2.1, 2.3, 2.4. On
// induction_key_pairs.tsv the corrupted prompt changes the token before the answer's first occurrence,
// so the induction heads' keys there no longer match. What the scores show (docs/circuits.md): the
// previous-token heads' direct paths into the induction heads' keys restore more than into 2.2's key,
// but little of the difference (a few per cent).
TEST(PathPatchingInductionLm, ThePreviousTokenHeadsReachTheInductionHeadsKeysMoreThan22s) {
  const auto loaded = load_checkpoint(AW_SOURCE_DIR "/sample_data/induction_lm");
  const auto pairs = read_patch_pairs(AW_SOURCE_DIR "/sample_data/induction_key_pairs.tsv", *loaded.tokenizer,
                                      loaded.config.max_positions);
  PathPatchSettings settings;
  settings.senders = {{0, {2}}, {0, {0, 2}}};                                  // 1.3, 1.1+1.3
  settings.receivers = {{PathKind::Key, 1, {0, 2, 3}}, {PathKind::Key, 1, {1}}};  // k of 2.1+2.3+2.4, of 2.2
  const auto result = path_patch(*loaded.model, pairs, settings);
  const auto restored = (result.clean - result.corrupted).sum().item<double>();
  auto effect = [&](int64_t s, int64_t r) { return (result.patched[s][r] - result.corrupted).sum().item<double>() / restored; };
  EXPECT_GT(effect(0, 0), effect(0, 1) + 0.01);
  EXPECT_GT(effect(1, 0), effect(1, 1) + 0.02);
  EXPECT_LT(effect(1, 0), 0.05);  // a few per cent: the behaviour does not run through these paths alone
}

// ---- Hugging Face's classes ------------------------------------------------------------------------

class PathPatchingHuggingFace : public ::testing::TestWithParam<std::string> {};

TEST_P(PathPatchingHuggingFace, EveryPathEqualsTheReference) {
  const auto loaded = load_checkpoint(kModels + GetParam());
  std::ifstream in(kReferences + GetParam() + ".json");
  ASSERT_TRUE(in);
  const auto reference = nlohmann::json::parse(in)["path_patching"];
  ASSERT_FALSE(reference.is_null());
  std::vector<PatchPair> pairs;
  for (const auto& pair : reference["pairs"])
    pairs.push_back({pair["clean"].get<std::vector<int64_t>>(), pair["corrupted"].get<std::vector<int64_t>>(),
                     pair["answer"].get<int64_t>(), pair["foil"].get<int64_t>(), 0});
  PathPatchSettings settings;
  settings.receivers = layer_receivers(loaded.config, reference["receiver_layer"].get<int64_t>());
  settings.receivers.insert(settings.receivers.begin(), PathReceiver{});
  settings.rows = 16;
  const auto result = path_patch(*loaded.model, pairs, settings);
  // float32 here, float64 there: m is a difference of logits, whose rounding follows their size.
  auto expect_close = [](double computed, double expected, const std::string& what) {
    EXPECT_NEAR(computed, expected, 2e-5 * std::max(1.0, std::abs(expected))) << what;
  };
  for (size_t p = 0; p < pairs.size(); ++p) {
    expect_close(result.clean[static_cast<int64_t>(p)].item<double>(), reference["m_clean"][p].get<double>(), "clean");
    expect_close(result.corrupted[static_cast<int64_t>(p)].item<double>(), reference["m_corrupted"][p].get<double>(),
                 "corrupted");
  }
  int64_t compared = 0;
  for (const auto& path : reference["paths"]) {
    const auto layer = path["sender"][0].get<int64_t>(), head = path["sender"][1].get<int64_t>();
    int64_t sender = 0;
    while (result.senders[sender].layer != layer || result.senders[sender].heads.front() != head) ++sender;
    const auto kind = path["receiver"].get<std::string>();
    int64_t receiver = 0;
    while (!(path_kind_name(result.receivers[receiver].kind) == kind &&
             (kind == "logits" || result.receivers[receiver].heads.front() == path["receiver_head"].get<int64_t>())))
      ++receiver;
    for (size_t p = 0; p < pairs.size(); ++p, ++compared)
      expect_close(result.patched[sender][receiver][static_cast<int64_t>(p)].item<double>(), path["patched"][p].get<double>(),
                   std::to_string(layer) + "." + std::to_string(head) + " → " + kind);
  }
  EXPECT_GT(compared, 0);
}

INSTANTIATE_TEST_SUITE_P(Families, PathPatchingHuggingFace, ::testing::Values("gpt2", "llama", "gemma2"));

}  // namespace
}  // namespace aw
