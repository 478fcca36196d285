// tests/models/nn/test_hooks.cpp — models/nn/hooks.h on the shared transformer: names round-trip, each
// point read in a forward holds what the block computes there (checked against the sums the block is
// made of, the captured attention and the layer-by-layer states), writes at z and head_out equal the
// head gates they stand for, a write of a point's own value changes nothing bit for bit, and tiled
// points come as tiles that join to the whole.
#include "models/nn/hooks.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace aw {
namespace {

using test::max_difference;
using test::tiny_config;

std::shared_ptr<TransformerImpl> tiny_model() {
  return test::random_model(tiny_config("transformer_lm"), 3, /*every_parameter=*/true);  // far from uniform attention
}

using test::input_of;
const std::vector<int64_t> kIds = {2, 5, 7, 3, 11, 4, 9, 2, 6, 13};

// Every tile a forward hands to readers at every point of every layer, joined per hook name.
class Recorder {
 public:
  explicit Recorder(ForwardOptions& options, const std::vector<HookPoint>& points) {
    for (const auto point : points)
      options.hooks.add(point, -1, [this](const HookSite& site, const torch::Tensor& value) {
        parts_[hook_name(site.point, site.layer)].emplace_back(site.first_position, value.clone());
        return torch::Tensor();
      });
  }
  torch::Tensor operator[](const std::string& name) const {
    const auto& parts = parts_.at(name);
    std::vector<torch::Tensor> tiles;
    int64_t expected_first = 0;
    const int64_t dimension = position_dimension(*hook_point_named(name));
    for (const auto& [first, tile] : parts) {
      EXPECT_EQ(first, expected_first) << name;
      expected_first += tile.size(dimension);
      tiles.push_back(tile);
    }
    return tiles.size() == 1 ? tiles.front() : torch::cat(tiles, dimension);
  }
  size_t tiles(const std::string& name) const { return parts_.at(name).size(); }
  bool has(const std::string& name) const { return parts_.count(name) > 0; }

 private:
  std::map<std::string, std::vector<std::pair<int64_t, torch::Tensor>>> parts_;
};

void expect_close(const torch::Tensor& ours, const torch::Tensor& expected, const std::string& what) {
  ASSERT_EQ(ours.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours, expected, 1e-5, 1e-5)) << what << ": " << max_difference(ours, expected);
}

TEST(HookNames, EveryPointRoundTripsThroughItsShortAndFullName) {
  for (int i = 0; i < kHookPointCount; ++i) {
    const auto point = static_cast<HookPoint>(i);
    EXPECT_EQ(hook_point_named(hook_point_name(point)), point);
    int64_t layer = -1;
    EXPECT_EQ(hook_point_named(hook_name(point, 3), &layer), point) << hook_name(point, 3);
    if (per_layer(point)) EXPECT_EQ(layer, 3);
  }
  EXPECT_EQ(hook_name(HookPoint::Z, 3), "blocks.3.attn.z");
  EXPECT_EQ(hook_name(HookPoint::ResidPost, 0), "blocks.0.resid_post");
  EXPECT_EQ(hook_name(HookPoint::MlpAct, 1), "blocks.1.mlp_act");
  EXPECT_EQ(hook_name(HookPoint::Logits, -1), "logits");
  EXPECT_EQ(hook_point_named("attn.pattern"), HookPoint::Pattern);
  for (const auto* wrong : {"blocks.x.attn.z", "blocks.-1.resid_pre", "blocks.2.final_norm", "attn.resid_pre",
                            "blocks.2", "zz", "", "mlp.act"})
    EXPECT_FALSE(hook_point_named(wrong).has_value()) << wrong;
}

// A model of one kind names its places blocks.<l>.…; the short names (--hooks) carry a translation
// model's kind of block first, and only a kind's name counts as one.
TEST(HookNames, AddressesNameEachPlaceAndShortNamesCarryTheKind) {
  const auto addresses = tiny_model()->hook_addresses();
  // Every point but the router (no experts) in each of 2 layers, then final_norm and logits.
  ASSERT_EQ(addresses.size(), static_cast<size_t>(2 * (kHookPointCount - 3) + 2));
  EXPECT_EQ(addresses.front().name(), "blocks.0.resid_pre");
  EXPECT_EQ(addresses.back().name(), "logits");
  for (const auto& address : addresses) EXPECT_EQ(address.name(), hook_name(address.point, address.number));
  const auto* z = find_address(addresses, HookPoint::Z, 1);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->short_name(), "z");
  EXPECT_EQ(find_address(addresses, HookPoint::Z, 2), nullptr);
  EXPECT_EQ((HookAddress{HookPoint::Pattern, 5, "cross", 1}.name()), "cross.blocks.1.attn.pattern");
  EXPECT_EQ((HookAddress{HookPoint::FinalNorm, 3, "enc", -1}.name()), "enc.final_norm");
  EXPECT_EQ((HookAddress{HookPoint::Z, 4, "dec", 0}.short_name()), "dec.z");
  EXPECT_EQ(grouped_point_named("cross.attn.z"), (GroupedPoint{"cross", HookPoint::Z}));
  EXPECT_EQ(grouped_point_named("enc.resid_post"), (GroupedPoint{"enc", HookPoint::ResidPost}));
  EXPECT_EQ(grouped_point_named("attn.z"), GroupedPoint(HookPoint::Z));
  for (const auto* wrong : {"encoder.z", "cross.", "cross.blocks.0.z", "dec.zz", "x.resid_post"})
    EXPECT_FALSE(grouped_point_named(wrong).has_value()) << wrong;
  EXPECT_EQ(short_name_list({{HookPoint::Q, 0, "enc", 0}, {HookPoint::Q, 1, "enc", 1}, {HookPoint::Logits, -1, "", -1}}),
            "enc.q, logits");
}

TEST(Hooks, APreNormModelHasEveryPointAndAPostNormOneNoFinalNorm) {
  EXPECT_EQ(tiny_model()->hook_points().size(), static_cast<size_t>(kHookPointCount - 1));  // no router
  nlohmann::json json = {{"model_type", "transformer_lm"}, {"vocab_size", 20}, {"n_layers", 2}, {"n_heads", 3},
                         {"d_model", 12}, {"d_ff", 24}, {"max_positions", 16}, {"norm", "post"}};
  const auto post = make_transformer(parse_model_config(json, "post-norm config"))->hook_points();
  EXPECT_EQ(post.size(), static_cast<size_t>(kHookPointCount - 2));
  EXPECT_EQ(std::count(post.begin(), post.end(), HookPoint::FinalNorm), 0);
}

TEST(Hooks, EachPointHoldsWhatTheBlockComputesThere) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto input = input_of(kIds);
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  const Recorder seen(options, model->hook_points());
  const auto result = model->forward(input, options);
  auto state = model->embed(input);
  for (int64_t layer = 0; layer < model->config().n_blocks; ++layer) {
    const auto name = [layer](HookPoint point) { return hook_name(point, layer); };
    auto& block = *model->layers[layer]->as<TransformerBlock>();
    expect_close(seen[name(HookPoint::ResidPre)], state, name(HookPoint::ResidPre));
    expect_close(seen[name(HookPoint::AttnIn)], block.ln_1(state), name(HookPoint::AttnIn));
    expect_close(seen[name(HookPoint::Pattern)], result.attention[layer], name(HookPoint::Pattern));
    expect_close(torch::softmax(seen[name(HookPoint::Scores)], -1), result.attention[layer], name(HookPoint::Scores));
    // Each head's mix is its pattern times its values.
    expect_close(seen[name(HookPoint::Z)], torch::matmul(result.attention[layer], seen[name(HookPoint::V)]),
                 name(HookPoint::Z));
    // The heads' writes and the output projection's bias are the attention's output.
    expect_close(seen[name(HookPoint::HeadOut)].sum(1) + block.attn->o->bias, seen[name(HookPoint::AttnOut)],
                 name(HookPoint::HeadOut));
    expect_close(seen[name(HookPoint::ResidMid)], state + seen[name(HookPoint::AttnOut)], name(HookPoint::ResidMid));
    expect_close(seen[name(HookPoint::MlpIn)], block.ln_2(seen[name(HookPoint::ResidMid)]), name(HookPoint::MlpIn));
    expect_close(block.mlp->fc2(seen[name(HookPoint::MlpAct)]), seen[name(HookPoint::MlpOut)], name(HookPoint::MlpAct));
    expect_close(seen[name(HookPoint::ResidPost)], seen[name(HookPoint::ResidMid)] + seen[name(HookPoint::MlpOut)],
                 name(HookPoint::ResidPost));
    state = model->run_layers(state, input, layer, layer + 1, {}).hidden;
    expect_close(seen[name(HookPoint::ResidPost)], state, name(HookPoint::ResidPost) + " (layer by layer)");
  }
  expect_close(seen["final_norm"], model->ln_f(state), "final_norm");
  expect_close(seen["logits"], result.logits, "logits");
}

// Zeroing head h at z, or its write at head_out, is the gate that switches it off.
TEST(Hooks, ZeroingAHeadAtZOrHeadOutIsItsGateOff) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto input = input_of(kIds);
  const auto& config = model->config();
  ForwardOptions gated;
  gated.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  gated.head_gates.index_put_({1, 2}, 0.0);
  const auto expected = model->forward(input, gated).logits;
  for (const auto point : {HookPoint::Z, HookPoint::HeadOut}) {
    ForwardOptions written;
    written.hooks.add(point, 1, [](const HookSite&, const torch::Tensor& value) {
      auto changed = value.clone();
      changed.select(1, 2).zero_();
      return changed;
    });
    expect_close(model->forward(input, written).logits, expected, hook_point_name(point));
  }
}

// A write of the point's own value takes the same path as a read there, and changes nothing.
TEST(Hooks, WritingEachPointWithItsOwnValueChangesNothingBitForBit) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto input = input_of(kIds);
  for (const auto point : model->hook_points()) {
    ForwardOptions read, written;
    read.hooks.add(point, -1, [](const HookSite&, const torch::Tensor&) { return torch::Tensor(); });
    written.hooks.add(point, -1, [](const HookSite&, const torch::Tensor& value) { return value.clone(); });
    EXPECT_TRUE(torch::equal(model->forward(input, read).logits, model->forward(input, written).logits))
        << hook_point_name(point);
  }
  // A read alone, where it keeps the path (not scores, pattern or head_out), is the plain forward.
  ForwardOptions read;
  read.hooks.add(HookPoint::ResidPost, -1, [](const HookSite&, const torch::Tensor&) { return torch::Tensor(); });
  EXPECT_TRUE(torch::equal(model->forward(input, read).logits, model->forward(input).logits));
}

TEST(Hooks, AWriteOfAnotherShapeIsOneLine) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  ForwardOptions options;
  options.hooks.add(HookPoint::Z, 1, [](const HookSite&, const torch::Tensor& value) { return value.narrow(1, 0, 2); });
  EXPECT_EQ(test::error_of([&] { model->forward(input_of(kIds), options); }),
            "a hook at blocks.1.attn.z wrote a tensor of shape [1, 2, 10, 4]; the point's is [1, 3, 10, 4]");
}

TEST(Hooks, ALayersHookSeesThatLayerAlone) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  ForwardOptions options;
  std::set<int64_t> layers;
  options.hooks.add(HookPoint::Z, 1, [&layers](const HookSite& site, const torch::Tensor&) {
    layers.insert(site.layer);
    return torch::Tensor();
  });
  model->forward(input_of(kIds), options);
  EXPECT_EQ(layers, std::set<int64_t>{1});
}

// Under a small memory budget the pattern, scores and head_out come in tiles of positions, the MLP's
// activation in tiles of tokens; joined, they are the untiled values.
TEST(Hooks, TiledPointsComeAsTilesThatJoinToTheWhole) {
  auto model = tiny_model();
  torch::InferenceMode inference;
  const auto input = input_of(kIds);
  const std::vector<HookPoint> tiled = {HookPoint::Scores, HookPoint::Pattern, HookPoint::HeadOut, HookPoint::MlpAct};
  ForwardOptions whole, small;
  const Recorder expected(whole, tiled);
  model->forward(input, whole);
  small.memory_budget = 3 * 10 * 4 * 3 * 2;  // a few rows of 3 heads × 10 keys
  const Recorder seen(small, tiled);
  model->forward(input, small);
  for (const auto point : tiled) {
    const auto name = hook_name(point, 0);
    EXPECT_GT(seen.tiles(name), 1u) << name;
    expect_close(seen[name], expected[name], name);
  }
}

}  // namespace
}  // namespace aw
