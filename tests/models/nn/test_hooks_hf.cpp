// tests/models/nn/test_hooks_hf.cpp — the hook points (models/nn/hooks.h) of the shared transformer and
// the translation models against what Hugging Face's own classes compute at the same places:
// tests/fixtures/hooks/<name>.safetensors, which scripts/fixtures/make_hook_fixtures.py recorded with forward
// hooks on the tiny models of tests/fixtures/hf_models/ (llama, mistral, qwen2, gpt_neox with a parallel and a
// sequential residual, qwen3 with and without biases, gemma2, gemma3_text, phi3 grouped, olmo2) and
// make_translation_hook_fixtures.py on tests/fixtures/hf/{marian,bart}_tiny (every enc., dec. and cross. point,
// teacher-forced). Every point of every layer, the final norm and the logits must match to 1e-5 (the scores where Hugging Face's are finite, and −∞ where theirs is);
// writing each point with its own value changes no logit by a bit; and under a small memory budget the
// pattern comes in several tiles, each of them Hugging Face's rows.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/nn/attention.h"
#include "models/nn/hooks.h"
#include "models/nn/model.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::max_difference;

const std::string kModels = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
const std::string kHooks = AW_SOURCE_DIR "/tests/fixtures/hooks/";
const std::vector<std::string> kTranslations = {"marian", "bart"};  // tests/fixtures/hf/<name>_tiny

std::string model_dir(const std::string& name) {
  const bool translation = std::find(kTranslations.begin(), kTranslations.end(), name) != kTranslations.end();
  return translation ? std::string(AW_SOURCE_DIR "/tests/fixtures/hf/") + name + "_tiny" : kModels + name;
}
// Both sides compute in float32 with other kernels and other orders of summation (HF multiplies the dot
// products by dh^-1/2 where we divide, fuses other projections): a few roundings of ~6e-8 each through two
// layers. Measured on one x86 CPU: every point but the logits (below) within 0.55 of this bound, mlp_act 0.87.
constexpr double kTolerance = 1e-5;

// The fixture of one family: Hugging Face's value at each hook name (without the batch dimension) and
// the ids it was computed for.
struct HookFixture {
  std::shared_ptr<const SafetensorsFile> file;

  explicit HookFixture(const std::string& name) : file(SafetensorsFile::open(kHooks + name + ".safetensors")) {}
  bool has(const std::string& name) const { return file->contains(name); }
  torch::Tensor get(const std::string& name) const { return file->tensor(name).clone(); }
  ModelInput input() const {
    ModelInput input;
    input.input_ids = get("ids").to(torch::kLong).unsqueeze(0);  // (1, n)
    if (has("decoder_ids")) input.decoder_input_ids = get("decoder_ids").to(torch::kLong).unsqueeze(0);  // (1, m)
    return input;
  }
  // The tensors that are hook points: every one but the ids.
  size_t points() const { return file->names().size() - (has("decoder_ids") ? 2 : 1); }
};

// Every tile a forward hands to the readers at `points` (every layer), kept by the model's hook name
// (HookAddress::name) and first position.
class TileRecorder {
 public:
  TileRecorder(ForwardOptions& options, const AttentionModel& model, const std::vector<HookPoint>& points)
      : addresses_(model.hook_addresses()) {
    for (const auto point : points)
      options.hooks.add(point, -1, [this](const HookSite& site, const torch::Tensor& value) {
        const auto* address = find_address(addresses_, site.point, site.layer);
        EXPECT_NE(address, nullptr) << hook_name(site.point, site.layer) << ": a hook call at no named place";
        if (!address) return torch::Tensor();
        if (!tiles_.count(address->name())) order_.push_back(address->name());
        auto& tiles = tiles_[address->name()];
        EXPECT_EQ(tiles.count(site.first_position), 0u) << address->name() << ": a tile at " << site.first_position
                                                        << " twice";
        tiles[site.first_position] = value.clone();
        points_[address->name()] = site.point;
        return torch::Tensor();
      });
  }

  bool has(const std::string& name) const { return tiles_.count(name) > 0; }
  // The names in the order the forward first reached them.
  const std::vector<std::string>& order() const { return order_; }
  // The tiles of one name in order of their first position: each must start where the one before ended.
  const std::map<int64_t, torch::Tensor>& tiles(const std::string& name) const { return tiles_.at(name); }

  // One name's tiles joined along its position dimension, the batch dimension dropped.
  torch::Tensor joined(const std::string& name) const {
    const int64_t dimension = position_dimension(points_.at(name));
    std::vector<torch::Tensor> parts;
    int64_t next = 0;
    for (const auto& [first, tile] : tiles(name)) {
      EXPECT_EQ(first, next) << name << ": the tiles leave a gap or overlap";
      next = first + tile.size(dimension);
      parts.push_back(tile);
    }
    const auto whole = parts.size() == 1 ? parts.front() : torch::cat(parts, dimension);
    EXPECT_EQ(whole.size(0), 1) << name << ": one sequence was run";
    return whole.select(0, 0);
  }

 private:
  std::vector<HookAddress> addresses_;
  std::map<std::string, std::map<int64_t, torch::Tensor>> tiles_;
  std::map<std::string, HookPoint> points_;
  std::vector<std::string> order_;
};

// Ours against Hugging Face's, to `absolute` + kTolerance × |theirs|. The scores are compared where HF's are
// finite; its −∞ (a masked score, which HF adds as the dtype's most negative number and the fixture stores
// as −∞) must be ours too.
void expect_matches(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& name,
                    double absolute = kTolerance) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << name;
  ASSERT_EQ(ours.scalar_type(), theirs.scalar_type()) << name;
  const auto finite = torch::isfinite(theirs);
  EXPECT_TRUE(torch::equal(torch::isfinite(ours), finite)) << name << ": finite in one, not in the other";
  EXPECT_TRUE(torch::equal(torch::isneginf(ours), torch::isneginf(theirs))) << name << ": masked elsewhere";
  const auto ours_finite = ours.masked_select(finite), theirs_finite = theirs.masked_select(finite);
  EXPECT_TRUE(torch::allclose(ours_finite, theirs_finite, kTolerance, absolute))
      << name << ": " << max_difference(ours_finite, theirs_finite);
}

// Every hook name the model has, in the order its forward passes them.
std::vector<std::string> hook_names(const AttentionModel& model) {
  std::vector<std::string> names;
  for (const auto& address : model.hook_addresses()) names.push_back(address.name());
  return names;
}

class HfHooks : public ::testing::TestWithParam<std::string> {};

TEST_P(HfHooks, EveryPointOfEveryLayerIsHuggingFaces) {
  const auto loaded = load_checkpoint(model_dir(GetParam()));
  const HookFixture fixture(GetParam());
  torch::InferenceMode inference;
  ForwardOptions options;
  TileRecorder seen(options, *loaded.model, loaded.model->hook_points());
  const auto result = loaded.model->forward(fixture.input(), options);
  const auto names = hook_names(*loaded.model);
  for (const auto& name : names) {
    ASSERT_TRUE(seen.has(name)) << name << ": no hook call";
    ASSERT_TRUE(fixture.has(name)) << name << ": not in the fixture";
    const auto expected = fixture.get(name);
    // A logit is a sum of d products that cancel: its rounding follows the size of those products, which is
    // that of the largest logits, not its own. Measured: up to 1.6e-5 on qwen3 (logits up to 24), at most
    // 6e-7 of the products' size; HF's own float32 logits are 5e-6 from float64. So the logits' absolute
    // tolerance is 1e-5 of their largest magnitude.
    const double absolute = name == "logits" ? kTolerance * std::max(1.0, expected.abs().max().item<double>())
                                             : kTolerance;
    expect_matches(seen.joined(name), expected, name, absolute);
  }
  // The model has the fixture's points, no more and no fewer (GPT-NeoX's parallel residual: no resid_mid;
  // Marian and BART no final norms).
  EXPECT_EQ(names.size(), fixture.points());
  EXPECT_EQ(seen.order(), names) << "hook_addresses lists the places in the order the forward passes them";
  EXPECT_TRUE(torch::equal(seen.joined("logits"), result.logits.select(0, 0))) << "the logits hook saw the output";
}

// A write of a point's own value (a clone: another tensor, the same numbers) changes no logit by a bit.
TEST_P(HfHooks, WritingEachPointWithItsOwnValueChangesNoLogit) {
  const auto loaded = load_checkpoint(model_dir(GetParam()));
  const auto input = HookFixture(GetParam()).input();
  auto& model = *loaded.model;
  torch::InferenceMode inference;
  // The explicit attention on both sides: a hook at scores or pattern keeps a forward off the fused
  // kernel, which rounds otherwise, so the forward without hooks must stay off it too to compare bits.
  ForwardOptions plain;
  plain.explicit_attention = true;
  const auto expected = model.forward(input, plain).logits;
  for (const auto point : model.hook_points()) {
    ForwardOptions written;
    written.explicit_attention = true;
    written.hooks.add(point, -1, [](const HookSite&, const torch::Tensor& value) { return value.clone(); });
    if (point != HookPoint::HeadOut) {
      EXPECT_TRUE(torch::equal(model.forward(input, written).logits, expected)) << hook_point_name(point);
      continue;
    }
    // Any hook at head_out, a reader too, makes the output projection the sum of the heads' writes (other
    // roundings than one matrix product): the same numbers as a read there, and close to no hook at all.
    ForwardOptions read;
    read.explicit_attention = true;
    read.hooks.add(point, -1, [](const HookSite&, const torch::Tensor&) { return torch::Tensor(); });
    const auto logits = model.forward(input, written).logits;
    EXPECT_TRUE(torch::equal(logits, model.forward(input, read).logits)) << hook_point_name(point);
    EXPECT_TRUE(torch::allclose(logits, expected, kTolerance, kTolerance))
        << hook_point_name(point) << ": " << max_difference(logits, expected);
  }
}

// A budget of three rows of attention makes each layer's pattern come in tiles of three query rows (the
// last may be shorter), and each tile holds Hugging Face's probabilities of its rows. A translation model's
// blocks have other heads and keys than the widest, so their tiles may be taller, but never whole.
TEST_P(HfHooks, UnderASmallMemoryBudgetThePatternComesInTilesOfHuggingFacesRows) {
  const auto loaded = load_checkpoint(model_dir(GetParam()));
  const HookFixture fixture(GetParam());
  const auto input = fixture.input();
  const bool translation = loaded.config.is_translation();
  const int64_t keys = std::max(input.input_ids.size(1), translation ? input.decoder_input_ids.size(1) : 0);
  torch::InferenceMode inference;
  ForwardOptions options;
  constexpr int64_t kRows = 3;
  options.memory_budget = kRows * attention_row_bytes(1, loaded.config.max_heads(), keys, torch::kFloat32);
  TileRecorder seen(options, *loaded.model, {HookPoint::Pattern});
  loaded.model->forward(input, options);
  for (const auto& address : loaded.model->hook_addresses()) {
    if (address.point != HookPoint::Pattern) continue;
    const auto name = address.name();
    ASSERT_TRUE(seen.has(name)) << name;
    const auto expected = fixture.get(name);  // (H, rows, keys)
    const int64_t length = expected.size(1);
    const auto& tiles = seen.tiles(name);
    if (translation) EXPECT_GT(tiles.size(), 1u) << name;
    else EXPECT_EQ(static_cast<int64_t>(tiles.size()), (length + kRows - 1) / kRows) << name;
    int64_t next = 0;
    for (const auto& [first, tile] : tiles) {
      EXPECT_EQ(first, next) << name;
      const int64_t rows = tile.size(2);
      if (!translation) EXPECT_LE(rows, kRows) << name;
      ASSERT_LE(first + rows, length) << name;
      expect_matches(tile.select(0, 0), expected.narrow(1, first, rows),
                     name + " rows " + std::to_string(first) + "-" + std::to_string(first + rows - 1));
      next = first + rows;
    }
    EXPECT_EQ(next, length) << name << ": the tiles cover every row";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfHooks,
                         ::testing::Values("llama", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential", "qwen3",
                                           "qwen3_bias", "gemma2", "gemma3", "phi3_grouped", "olmo2", "marian",
                                           "bart"));

}  // namespace
}  // namespace aw
