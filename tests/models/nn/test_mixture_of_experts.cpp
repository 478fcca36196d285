// tests/models/nn/test_mixture_of_experts.cpp — mixtral, qwen3_moe, olmoe and gpt_oss (models/nn/
// mixture_of_experts.h, model_config_moe.cpp, checkpoint/mxfp4.h) against Hugging Face's own classes
// (scripts/fixtures/make_hf_moe_fixtures.py): every router's choice and weights, gpt-oss's sinks, its
// MXFP4 experts decoded by hand, tiling by the memory budget, and the one-line errors of bad configs
// and bad MXFP4 tensors. Logits, attention and gates are in test_transformer_hf_families.cpp.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/mxfp4.h"
#include "models/checkpoint/safetensors.h"
#include "models/nn/mixture_of_experts.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::hf_models::read_reference;
using test::max_difference;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

nlohmann::json config_json(const std::string& fixture) {
  return nlohmann::json::parse(std::ifstream(kFixtures + fixture + "/config.json"));
}

template <typename Change>
std::string config_error(const std::string& fixture, Change change) {
  auto json = config_json(fixture);
  change(json);
  return error_of([&] { parse_model_config(json, "m/config.json"); });
}

// Every sparse layer's router logits for `ids`, in layer order (the Router hook point).
std::vector<torch::Tensor> router_logits(AttentionModel& model, const torch::Tensor& ids) {
  std::vector<torch::Tensor> seen;
  ForwardOptions options;
  options.hooks.add(HookPoint::Router, -1, [&](const HookSite&, const torch::Tensor& value) {
    seen.push_back(value.clone());
    return torch::Tensor();
  });
  ModelInput input;
  input.input_ids = ids.unsqueeze(0);
  model.forward(input, options);
  return seen;
}

class MoeFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(MoeFamilies, EveryRouterChoosesHuggingFacesExpertsWithItsWeights) {
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  const auto reference = read_reference(GetParam());
  torch::InferenceMode inference;
  for (const auto& key : {std::string("plain"), std::string("special")}) {
    const auto logits = router_logits(*loaded.model, reference.get("ids_" + key));
    const auto experts = reference.get("experts_" + key), weights = reference.get("expert_weights_" + key);
    ASSERT_EQ(static_cast<int64_t>(logits.size()), experts.size(0)) << key << ": one router per sparse layer";
    for (size_t layer = 0; layer < logits.size(); ++layer) {
      const auto choice = choose_experts(loaded.config.moe, logits[layer][0]);
      EXPECT_TRUE(torch::equal(choice.experts, experts[layer])) << key << " layer " << layer;
      EXPECT_TRUE(torch::allclose(choice.weights, weights[layer], 1e-5, 1e-5))
          << key << " layer " << layer << ": " << max_difference(choice.weights, weights[layer]);
    }
  }
}

TEST_P(MoeFamilies, TiledByTheMemoryBudgetIsTheSame) {
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = read_reference(GetParam()).get("ids_plain").unsqueeze(0);
  const auto whole = loaded.model->forward(input).logits;
  ForwardOptions tiled;
  tiled.memory_budget = 4096;  // a few tokens per tile of the experts
  const auto pieces = loaded.model->forward(input, tiled).logits;
  EXPECT_TRUE(torch::allclose(whole, pieces, 1e-5, 1e-5)) << max_difference(whole, pieces);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MoeFamilies,
                         ::testing::Values("mixtral", "qwen3_moe", "olmoe", "gpt_oss", "gpt_oss_mxfp4"));

TEST(MoeConfig, EachFamilyRoutesAsItsClassesDo) {
  const auto mixtral = parse_model_config(config_json("mixtral"), "c");
  EXPECT_EQ(mixtral.moe.experts, 4);
  EXPECT_EQ(mixtral.moe.top_k, 2);
  EXPECT_TRUE(mixtral.moe.normalise_top_k);
  EXPECT_FALSE(mixtral.moe.top_k_softmax);
  const auto qwen = parse_model_config(config_json("qwen3_moe"), "c");
  EXPECT_EQ(qwen.moe.expert_ffn, 16);
  EXPECT_EQ(qwen.d_ff, 40);  // the dense layer's
  EXPECT_FALSE(qwen.moe.sparse_layer(0));
  EXPECT_TRUE(qwen.moe.sparse_layer(1));
  const auto olmoe = parse_model_config(config_json("olmoe"), "c");
  EXPECT_EQ(olmoe.decoder.qk_norm, QkNorm::Whole);
  EXPECT_EQ(olmoe.decoder.qkv_clip, 2.0);
  const auto oss = parse_model_config(config_json("gpt_oss_mxfp4"), "c");
  EXPECT_TRUE(oss.decoder.attention_sinks);
  EXPECT_TRUE(oss.moe.mxfp4);
  EXPECT_TRUE(oss.moe.top_k_softmax);
  EXPECT_EQ(oss.decoder.sliding_layers, (std::vector<bool>{false, true}));
  EXPECT_EQ(oss.rotary.scaling, RopeScaling::Yarn);
  EXPECT_NEAR(oss.rotary.attention_factor, 0.1 * std::log(4.0) + 1, 1e-12);
}

TEST(MoeConfig, InconsistentExpertsAndUnknownQuantisationsAreOneLine) {
  EXPECT_EQ(config_error("mixtral", [](auto& j) { j["num_experts_per_tok"] = 5; }),
            "m/config.json: num_experts_per_tok 5 is more than the 4 experts (num_local_experts)");
  EXPECT_EQ(config_error("olmoe", [](auto& j) { j["num_experts"] = 0; }),
            "m/config.json: key 'num_experts' must be a positive integer, got 0");
  EXPECT_EQ(config_error("qwen3_moe", [](auto& j) { j.erase("moe_intermediate_size"); }),
            "m/config.json: missing key 'moe_intermediate_size'");
  EXPECT_EQ(config_error("qwen3_moe", [](auto& j) { j["mlp_only_layers"] = {5}; }),
            "m/config.json: mlp_only_layers names layer 5 of 2");
  EXPECT_EQ(config_error("gpt_oss_mxfp4", [](auto& j) { j["quantization_config"]["quant_method"] = "fp8"; }),
            "m/config.json (quantization_config): quant_method 'fp8' is not supported (supported: mxfp4)");
  EXPECT_EQ(config_error("gpt_oss", [](auto& j) { j["rope_parameters"]["beta_slow"] = 40.0; }),
            "m/config.json (rope_parameters): yarn scaling needs 0 < beta_slow < beta_fast");
  EXPECT_EQ(config_error("gpt_oss", [](auto& j) { j["rope_parameters"].erase("original_max_position_embeddings"); }),
            "m/config.json (rope_parameters): missing key 'original_max_position_embeddings'");
}

TEST(GptOss, EachHeadsSinkTakesItsShareOfEveryRow) {
  // A row's probabilities over the tokens sum to 1 − the sink's share, exp(s) / (Σ exp(score) + exp(s)).
  const auto loaded = load_checkpoint(kFixtures + "gpt_oss");
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = read_reference("gpt_oss").get("ids_plain").unsqueeze(0);
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  std::vector<torch::Tensor> scores;
  options.hooks.add(HookPoint::Scores, -1, [&](const HookSite&, const torch::Tensor& value) {
    scores.push_back(value.clone());
    return torch::Tensor();
  });
  const auto result = loaded.model->forward(input, options);
  for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer) {
    const auto sinks = loaded.model->module().named_parameters()["layers." + std::to_string(layer) + ".attn.sinks"];
    const auto with_sink = torch::cat({scores[layer], sinks.view({1, -1, 1, 1}).expand({1, -1, scores[layer].size(2), 1})}, -1);
    const auto sink_share = torch::softmax(with_sink, -1).select(-1, -1);  // (1, H, n)
    const auto row_sums = result.attention[layer].sum(-1);
    EXPECT_TRUE(torch::allclose(row_sums, 1 - sink_share, 1e-6, 1e-6)) << max_difference(row_sums, 1 - sink_share);
    EXPECT_LT(row_sums.min().item<double>(), 0.9);  // the fixture's sinks take a visible share
  }
}

TEST(GptOss, Mxfp4ExpertsAreTheirCodesTimesTheirScales) {
  // One weight decoded by hand from the file's bytes: expert 1, row r of the stored [E, R, G, 16].
  const auto loaded = load_checkpoint(kFixtures + "gpt_oss_mxfp4");
  EXPECT_NE(loaded.stored_dtype.find("MXFP4"), std::string::npos) << loaded.stored_dtype;
  const auto file = SafetensorsFile::open(kFixtures + "gpt_oss_mxfp4/model.safetensors");
  const auto blocks = file->tensor("model.layers.0.mlp.experts.down_proj_blocks");  // [4, 64, 1, 16]
  const auto scales = file->tensor("model.layers.0.mlp.experts.down_proj_scales");  // [4, 64, 1]
  const auto down = loaded.model->module().named_parameters()["layers.0.mlp.down"];    // [4, 32, 64]
  const float e2m1[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0f, -0.5, -1, -1.5, -2, -3, -4, -6};
  for (int64_t row : {0, 17, 63})
    for (int64_t column : {0, 1, 30, 31}) {
      const auto byte = blocks[1][row][0][column / 2].item<uint8_t>();
      const int code = column % 2 == 0 ? byte & 15 : byte >> 4;
      const double expected = e2m1[code] * std::ldexp(1.0, scales[1][row][0].item<uint8_t>() - 127);
      EXPECT_EQ(down[1][column][row].item<float>(), expected) << row << ", " << column;
    }
}

// A copy of the MXFP4 fixture with `change` made to its tensors, loaded: the error.
template <typename Change>
std::string mxfp4_error(Change change) {
  test::TempDir dir;
  for (const auto* name : {"config.json", "tokenizer.json"})
    fs::copy_file(kFixtures + "gpt_oss_mxfp4/" + name, dir.file(name));
  const auto file = SafetensorsFile::open(kFixtures + "gpt_oss_mxfp4/model.safetensors");
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& name : file->names()) tensors[name] = file->tensor(name).clone();
  change(tensors);
  write_safetensors(dir.file("model.safetensors"), {tensors.begin(), tensors.end()});
  return error_of([&] { load_checkpoint(dir.path()); });
}

TEST(GptOss, BadMxfp4TensorsAreOneLine) {
  const std::string name = "model.layers.0.mlp.experts.down_proj";
  EXPECT_NE(mxfp4_error([&](auto& t) { t[name + "_scales"] = t[name + "_scales"].to(torch::kInt16); })
                .find("MXFP4 tensors '" + name + "_blocks' and '" + name + "_scales' must be U8, got U8 and I16"),
            std::string::npos);
  EXPECT_NE(mxfp4_error([&](auto& t) { t[name + "_scales"] = t[name + "_scales"].narrow(1, 0, 8).contiguous(); })
                .find("MXFP4 tensor '" + name + "_blocks' [4, 64, 1, 16] with scales [4, 8, 1]: expected blocks [E, R, G, 16] and scales [E, R, G]"),
            std::string::npos);
  EXPECT_NE(mxfp4_error([&](auto& t) {
              t[name + "_blocks"] = t[name + "_blocks"].narrow(1, 0, 32).contiguous();
              t[name + "_scales"] = t[name + "_scales"].narrow(1, 0, 32).contiguous();
            }).find("MXFP4 tensor '" + name + "' dequantises to [4, 32, 32] but the config needs [4, 32, 64]"),
            std::string::npos);
  EXPECT_NE(mxfp4_error([&](auto& t) { t.erase(name + "_scales"); }).find("missing tensor 'layers.0.mlp.experts.down_proj'"),
            std::string::npos);
}

}  // namespace
}  // namespace aw
