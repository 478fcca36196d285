// tests/analysis/capture/test_expert_routing.cpp — each token's experts (analysis/capture/expert_routing.h)
// on the mixture-of-experts fixtures against Hugging Face's own routers (scripts/fixtures/
// make_hf_moe_fixtures.py), the CSV's layout, a long text routed in tiles, and the refusal of a dense model.
#include "analysis/capture/expert_routing.h"
#include "models/checkpoint/checkpoint.h"
#include "models/memory_budget.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::hf_models::read_reference;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

Encoding encoding_of(const torch::Tensor& ids) {
  Encoding encoding;
  for (int64_t i = 0; i < ids.numel(); ++i) {
    encoding.ids.push_back(ids[i].item<int64_t>());
    encoding.tokens.push_back("t" + std::to_string(i));
  }
  return encoding;
}

TEST(ExpertRouting, EachSparseLayerChoosesHuggingFacesExperts) {
  for (const std::string fixture : {"qwen3_moe", "gpt_oss_mxfp4"}) {
    const auto loaded = load_checkpoint(kFixtures + fixture);
    const auto reference = read_reference(fixture);
    const auto encoding = encoding_of(reference.get("ids_plain"));
    const auto routing = route_tokens(*loaded.model, loaded.name, encoding);
    const auto experts = reference.get("experts_plain"), weights = reference.get("expert_weights_plain");
    ASSERT_EQ(static_cast<int64_t>(routing.size()), experts.size(0)) << fixture;
    for (size_t layer = 0; layer < routing.size(); ++layer) {
      EXPECT_TRUE(torch::equal(routing[layer].experts, experts[layer])) << fixture << " layer " << layer;
      EXPECT_TRUE(torch::allclose(routing[layer].weights, weights[layer], 1e-5, 1e-5)) << fixture;
    }
    if (fixture == "qwen3_moe") EXPECT_EQ(routing.front().layer, 1);  // layer 0 is dense (mlp_only_layers)
    const auto table = routing_table(routing, encoding, loaded.name);
    EXPECT_EQ(table.row_count(), static_cast<int64_t>(routing.size() * encoding.ids.size()));
    EXPECT_EQ(table.number(0, table.column("layer")), static_cast<double>(routing.front().layer + 1));
    EXPECT_EQ(table.number(3, table.column("expert_2")), static_cast<double>(experts[0][3][1].item<int64_t>()));
    EXPECT_EQ(table.text(3, table.column("token")), "t3");
  }
}

TEST(ExpertRouting, ALongTextRoutedInTilesIsTheSame) {
  auto loaded = load_checkpoint(kFixtures + "mixtral");
  const auto ids = torch::randint(5, 400, {100}, torch::kLong);
  const auto encoding = encoding_of(ids);
  const auto whole = route_tokens(*loaded.model, loaded.name, encoding);
  set_attention_memory_budget(8192);  // tiles of ten tokens in the experts
  const auto tiled = route_tokens(*loaded.model, loaded.name, encoding);
  set_attention_memory_budget(0);
  ASSERT_EQ(whole.size(), tiled.size());
  for (size_t layer = 0; layer < whole.size(); ++layer) {
    EXPECT_EQ(tiled[layer].experts.size(0), 100);
    EXPECT_TRUE(torch::equal(whole[layer].experts, tiled[layer].experts));
  }
}

TEST(ExpertRouting, ADenseModelIsRefusedByName) {
  const auto loaded = load_checkpoint(kFixtures + "llama");
  EXPECT_EQ(test::error_of([&] { route_tokens(*loaded.model, "llama", encoding_of(torch::tensor({1, 2}))); }),
            "llama is a llama model without experts; expert routing needs a mixture of experts (mixtral, qwen3_moe, "
            "olmoe, gpt_oss)");
}

}  // namespace
}  // namespace aw
