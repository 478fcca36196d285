// tests/models/nn/test_model_config_families.cpp — config.json of qwen3, gemma2, gemma3_text, phi3 and
// olmo2 as transformers 4 and 5 write them (models/nn/model_config_decoders.cpp): what each family
// turns on, Gemma's layer types and Gemma 3's two rope settings from either version's keys, and the
// one-line errors of what is not supported.
#include "models/errors.h"
#include "models/nn/model_config.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;

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

TEST(NewerFamilies, EachTurnsOnWhatItsClassesDo) {
  const auto qwen3 = parse_model_config(config_json("qwen3"), "c");
  EXPECT_EQ(qwen3.decoder.qk_norm, QkNorm::PerHead);
  EXPECT_FALSE(qwen3.decoder.qkv_bias);
  EXPECT_TRUE(parse_model_config(config_json("qwen3_bias"), "c").decoder.out_bias);  // attention_bias: o too

  const auto gemma2 = parse_model_config(config_json("gemma2"), "c");
  EXPECT_EQ(gemma2.decoder.norm, NormKind::RmsNormPlusOne);
  EXPECT_TRUE(gemma2.decoder.pre_norms && gemma2.decoder.post_norms);
  EXPECT_DOUBLE_EQ(gemma2.decoder.embedding_scale, std::sqrt(32.0));
  EXPECT_DOUBLE_EQ(gemma2.decoder.query_scale, 16.0);
  EXPECT_DOUBLE_EQ(gemma2.decoder.attention_softcap, 5.0);
  EXPECT_DOUBLE_EQ(gemma2.decoder.final_softcap, 3.0);
  EXPECT_EQ(gemma2.decoder.sliding_layers, (std::vector<bool>{true, false}));
  EXPECT_EQ(gemma2.activation, Activation::GeluTanh);
  EXPECT_TRUE(gemma2.tie_embeddings);
  EXPECT_DOUBLE_EQ(parse_model_config(config_json("gemma2_global_first"), "c").decoder.attention_softcap, 0.0);

  const auto olmo2 = parse_model_config(config_json("olmo2"), "c");
  EXPECT_EQ(olmo2.decoder.qk_norm, QkNorm::Whole);
  EXPECT_FALSE(olmo2.decoder.pre_norms);
  EXPECT_TRUE(olmo2.decoder.post_norms);
  EXPECT_FALSE(olmo2.real_pruning);

  EXPECT_EQ(parse_model_config(config_json("phi3"), "c").rotary.dims, 4);  // half of a head of 8
  EXPECT_EQ(parse_model_config(config_json("phi3_grouped"), "c").decoder.sliding_window, 5);
}

TEST(NewerFamilies, GemmaLayerTypesFromThePatternOfOlderFiles) {
  auto gemma2 = config_json("gemma2");
  gemma2.erase("layer_types");
  gemma2["num_hidden_layers"] = 4;
  EXPECT_EQ(parse_model_config(gemma2, "c").decoder.sliding_layers, (std::vector<bool>{true, false, true, false}));
  auto gemma3 = config_json("gemma3");
  gemma3.erase("layer_types");
  gemma3["num_hidden_layers"] = 7;
  gemma3["sliding_window_pattern"] = 3;
  EXPECT_EQ(parse_model_config(gemma3, "c").decoder.sliding_layers,
            (std::vector<bool>{true, true, false, true, true, false, true}));
}

TEST(NewerFamilies, Gemma3RopeOfBothLayerTypesFromVersion4And5Keys) {
  const auto v5 = parse_model_config(config_json("gemma3"), "c");
  EXPECT_DOUBLE_EQ(v5.rotary.theta, 1000000.0);
  EXPECT_EQ(v5.rotary.scaling, RopeScaling::Linear);
  EXPECT_DOUBLE_EQ(v5.rotary.factor, 4.0);
  EXPECT_DOUBLE_EQ(v5.decoder.sliding_rotary.theta, 10000.0);
  EXPECT_EQ(v5.decoder.sliding_rotary.scaling, RopeScaling::Default);
  EXPECT_EQ(v5.decoder.sliding_rotary.dims, 8);

  auto v4 = config_json("gemma3");  // as google/gemma-3-4b-it's text part states it
  v4.erase("rope_parameters");
  v4["rope_theta"] = 1000000.0;
  v4["rope_local_base_freq"] = 10000.0;
  v4["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 8.0}};
  const auto parsed = parse_model_config(v4, "c");
  EXPECT_DOUBLE_EQ(parsed.rotary.factor, 8.0);
  EXPECT_DOUBLE_EQ(parsed.decoder.sliding_rotary.theta, 10000.0);
  EXPECT_EQ(parsed.decoder.sliding_rotary.scaling, RopeScaling::Default);
}

TEST(NewerFamilies, UnsupportedFeaturesGetOneLine) {
  EXPECT_EQ(config_error("phi3", [](auto& j) { j["rope_parameters"]["rope_type"] = "longrope"; }),
            "m/config.json (rope_parameters): rope scaling 'longrope' is not supported (supported: default, linear, llama3, yarn)");
  EXPECT_EQ(config_error("qwen3", [](auto& j) { j["use_sliding_window"] = true; }),
            "m/config.json: use_sliding_window true is not supported for qwen3 (its window starts at max_window_layers)");
  EXPECT_EQ(config_error("gemma2", [](auto& j) { j["layer_types"] = {"sliding_attention"}; }),
            "m/config.json: layer_types has 1 entries for 2 layers");
  EXPECT_EQ(config_error("gemma3", [](auto& j) { j["layer_types"][1] = "chunked_attention"; }),
            "m/config.json: layer type 'chunked_attention' is not supported (supported: sliding_attention, full_attention)");
  EXPECT_EQ(config_error("gemma3", [](auto& j) { j["use_bidirectional_attention"] = true; }),
            "m/config.json: use_bidirectional_attention true is not supported (a bidirectional Gemma is not a "
            "language model)");
  EXPECT_EQ(config_error("gemma3", [](auto& j) { j["rope_parameters"]["sliding_attention"]["rope_type"] = "dynamic"; }),
            "m/config.json (rope_parameters.sliding_attention): rope scaling 'dynamic' is not supported (supported: "
            "default, linear, llama3, yarn)");
  EXPECT_EQ(config_error("gemma2", [](auto& j) { j.erase("hidden_size"); }), "m/config.json: missing key 'hidden_size'");
}

}  // namespace
}  // namespace aw
