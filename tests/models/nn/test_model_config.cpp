// tests/models/nn/test_model_config.cpp — models/nn/model_config.h: config.json parsed and written — each
// family's traits, the native JSON writing the names it reads, translation models' block numbering and
// round trip, Hugging Face decoder configs (transformers 4 and 5 keys) and the one-line errors of bad or
// unsupported ones.
#include "models/attention_kind.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/config_enums.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "tests/support/hf_translation_fixtures.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::hf_translation::fixture_dir;
using test::tiny_config;

TEST(FamilyTraits, TheFamiliesTrainedHereAreTheNativeOnes) {
  for (const auto family : all_values<ModelFamily>()) {
    const auto traits = family_traits(family);
    EXPECT_EQ(traits.format == CheckpointFormat::Native, traits.trained_as != TrainedAs::None) << to_string(family);
  }
  const auto config = test::tiny_lama_config("bigru_max");  // parse_model_config gives every config its traits
  EXPECT_EQ(config.trained_as, TrainedAs::Classifier);
  EXPECT_EQ(config.network, Network::Recurrent);
  EXPECT_FALSE(config.real_pruning);
  EXPECT_EQ(config.recurrent.pooling, RecurrentPooling::Max);
  EXPECT_FALSE(config.has_lama_attention());
}

TEST(ConfigEnums, NativeConfigJsonWritesTheNamesItReads) {
  for (const auto family : {ModelFamily::TransformerLm, ModelFamily::BetSf, ModelFamily::BetSg}) {
    for (const auto diag_mode : all_values<DiagMode>()) {
      auto config = tiny_config(to_string(family));
      config.diag_mode = diag_mode;
      const auto json = native_config_json(config);
      EXPECT_EQ(json.at("model_type"), to_string(family));
      EXPECT_EQ(json.contains("diag_mode"), diag_mode != DiagMode::Normal);
      const auto parsed = parse_model_config(json, "round trip");
      EXPECT_EQ(parsed.family, family);
      EXPECT_EQ(parsed.diag_mode, diag_mode);
    }
  }
  for (const auto context : all_values<LamaContext>()) {
    for (const auto regularizer : all_values<Regularizer>()) {
      auto config = test::tiny_lama_config();
      config.recurrent.context = context;
      config.recurrent.regularizer = regularizer;
      const auto json = native_config_json(config);
      EXPECT_EQ(json.at("context"), to_string(context));
      EXPECT_EQ(json.at("regularizer"), to_string(regularizer));
      const auto parsed = parse_model_config(json, "round trip");
      EXPECT_EQ(parsed.recurrent.context, context);
      EXPECT_EQ(parsed.recurrent.regularizer, regularizer);
    }
  }
}

TEST(ConfigEnums, BadModeNamesTheChoices) {
  auto expect_error = [](const nlohmann::json& json, const std::string& message) {
    try {
      parse_model_config(json, "cfg.json");
      ADD_FAILURE() << "no error for " << json.dump();
    } catch (const Error& error) {
      EXPECT_EQ(std::string(error.what()), "cfg.json: " + message);
    }
  };
  auto lama = native_config_json(test::tiny_lama_config());
  lama["regularizer"] = "l2";
  expect_error(lama, "key 'regularizer' must be one of none, penal, emb, got \"l2\"");
  auto native = native_config_json(tiny_config("transformer_lm"));
  native["tokenizer"] = "gpt2_bpe";
  expect_error(native, "key 'tokenizer' must be one of word, got \"gpt2_bpe\"");
  native["tokenizer"] = "word";
  native["diag_mode"] = 2;
  expect_error(native, "key 'diag_mode' must be one of normal, reduced, magnified, mask, got 2");
}

TEST(TranslationConfig, BlocksAreNumberedEncoderThenDecoderSelfAndCross) {
  auto config = read_model_config(fixture_dir("marian_tiny"));
  ASSERT_EQ(config.n_blocks, 2 + 2 * 2);
  EXPECT_EQ(config.heads_per_block, (std::vector<int64_t>{4, 4, 2, 2, 2, 2}));
  EXPECT_EQ(config.attention_block(1).kind, AttentionKind::Encoder);
  EXPECT_EQ(config.attention_block(2).kind, AttentionKind::Decoder);
  EXPECT_EQ(config.attention_block(5).kind, AttentionKind::Cross);
  EXPECT_EQ(config.attention_block(5).layer, 1);
  EXPECT_EQ(config.block_index(AttentionKind::Cross, 0), 3);
  EXPECT_EQ(config.block_index(AttentionKind::Decoder, 2), -1);
  EXPECT_EQ(config.head_width(0), 4);
  EXPECT_EQ(config.head_width(2), 8);
}

TEST(TranslationConfig, NativeConfigRoundTripsThroughItsJson) {
  const auto json = nlohmann::json::parse(R"({"model_type": "transformer_mt", "vocab_size": 50, "encoder_layers": 2,
      "decoder_layers": 3, "encoder_heads": 4, "decoder_heads": 2, "d_model": 16, "encoder_ffn": 32,
      "decoder_ffn": 24, "max_positions": 40, "norm": "pre", "decoder_bird_eye": true, "pad_id": 0, "bos_id": 2,
      "eos_id": 3, "heads_per_layer": [4, 3, 2, 2, 1, 2, 2, 2]})");
  const auto config = parse_model_config(json, "config.json");
  const auto again = parse_model_config(native_config_json(config), "config.json");
  EXPECT_EQ(again.heads_per_block, (std::vector<int64_t>{4, 3, 2, 2, 1, 2, 2, 2}));
  EXPECT_EQ(again.translation.decoder_layers, 3);
  EXPECT_EQ(again.translation.decoder_d_head, 8);
  EXPECT_EQ(again.d_head, 4);
  EXPECT_EQ(again.translation.decoder_ffn, 24);
  EXPECT_TRUE(again.translation.decoder_bird_eye);
  EXPECT_TRUE(again.translation.decoder_diag_free_mask);
  EXPECT_TRUE(again.translation.final_norm);
  EXPECT_EQ(again.translation.decoder_start_id, 2);
  EXPECT_EQ(native_config_json(again), native_config_json(config));
  // The model it describes runs: 8 blocks captured, cross [B, H, m, n].
  auto model = create_model(config);
  ModelInput input;
  input.input_ids = torch::tensor({{5, 6, 7, 3}}, torch::kLong);
  input.decoder_input_ids = torch::tensor({{2, 8, 9}}, torch::kLong);
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  torch::NoGradGuard no_grad;
  const auto result = model->forward(input, options);
  ASSERT_EQ(result.attention.size(), 8u);
  EXPECT_EQ(result.attention[config.block_index(AttentionKind::Cross, 2)].sizes(), (torch::IntArrayRef{1, 2, 3, 4}));
  EXPECT_EQ(result.logits.sizes(), (torch::IntArrayRef{1, 3, 50}));
}

// Found by fuzz/fuzz_config.cpp: d_model 129 with 4 heads of width 32 was written without its d_head
// (129 / 4 = 32 in integer division) and the written file no longer read back.
TEST(TranslationConfig, NonSquareHeadWidthRoundTrips) {
  const auto json = nlohmann::json::parse(R"({"model_type": "transformer_mt", "vocab_size": 50, "encoder_layers": 1,
      "decoder_layers": 1, "n_heads": 4, "d_model": 129, "d_head": 32, "max_positions": 40})");
  const auto config = parse_model_config(json, "config.json");
  const auto written = native_config_json(config);
  EXPECT_EQ(written.at("d_head"), 32);
  const auto again = parse_model_config(written, "config.json");
  EXPECT_EQ(again.d_head, 32);
  EXPECT_EQ(again.translation.decoder_d_head, 32);
}

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

TEST(HfFamilies, ConfigsReadAsTheirFamiliesMeanThem) {
  const auto llama = read_model_config(kFixtures + "llama");
  EXPECT_EQ(llama.family, ModelFamily::Llama);
  EXPECT_EQ(llama.decoder.kv_heads, 2);
  EXPECT_TRUE(llama.decoder.grouped_query);
  EXPECT_EQ(llama.decoder.query_groups, (std::vector<std::vector<int64_t>>{{2, 2}, {2, 2}}));
  EXPECT_EQ(llama.decoder.norm, NormKind::RmsNorm);
  EXPECT_TRUE(llama.decoder.gated_mlp);
  EXPECT_FALSE(llama.decoder.qkv_bias);
  EXPECT_EQ(llama.rotary.scaling, RopeScaling::Llama3);
  EXPECT_EQ(llama.rotary.original_max_positions, 64);
  EXPECT_FALSE(llama.tie_embeddings);
  EXPECT_EQ(llama.tokenizer, TokenizerKind::HfJson);

  const auto bias = read_model_config(kFixtures + "llama_bias");
  EXPECT_EQ(bias.d_head, 12);  // head_dim, wider than hidden_size / heads
  EXPECT_TRUE(bias.decoder.qkv_bias && bias.decoder.out_bias && bias.decoder.mlp_bias);
  EXPECT_EQ(bias.rotary.scaling, RopeScaling::Linear);
  EXPECT_DOUBLE_EQ(bias.rotary.factor, 2.0);
  EXPECT_TRUE(bias.tie_embeddings);

  EXPECT_EQ(read_model_config(kFixtures + "mistral").decoder.sliding_window, 5);
  const auto qwen = read_model_config(kFixtures + "qwen2");
  EXPECT_TRUE(qwen.decoder.qkv_bias);
  EXPECT_FALSE(qwen.decoder.out_bias);
  EXPECT_DOUBLE_EQ(qwen.rotary.theta, 1e6);

  const auto neox = read_model_config(kFixtures + "gpt_neox");
  EXPECT_EQ(neox.rotary.dims, 4);  // a quarter of 16
  EXPECT_TRUE(neox.decoder.parallel_residual);
  EXPECT_EQ(neox.decoder.norm, NormKind::LayerNorm);
  EXPECT_FALSE(neox.decoder.grouped_query);  // q|k|v fused per head: each query head has its own
  EXPECT_TRUE(neox.decoder.query_groups.empty());
  for (const auto& config : {llama, neox}) {  // loaded, not trained; real pruning saves them
    EXPECT_EQ(config.format, CheckpointFormat::HuggingFace);
    EXPECT_EQ(config.trained_as, TrainedAs::None);
    EXPECT_TRUE(config.real_pruning);
  }
  EXPECT_FALSE(read_model_config(kFixtures + "gpt_neox_sequential").decoder.parallel_residual);
}

TEST(HfFamilies, TransformersV4KeysReadTheSame) {
  // Checkpoints on the Hub were mostly written by transformers 4: rope_theta and rope_scaling
  // ("type" or "rope_type"), GPT-NeoX's rotary_pct and rotary_emb_base.
  auto llama = nlohmann::json::parse(std::ifstream(kFixtures + "llama/config.json"));
  llama.erase("rope_parameters");
  llama["rope_theta"] = 500000.0;
  llama["rope_scaling"] = {{"type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0},
                           {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}};
  const auto config = parse_model_config(llama, "config.json");
  EXPECT_DOUBLE_EQ(config.rotary.theta, 500000.0);
  EXPECT_EQ(config.rotary.scaling, RopeScaling::Llama3);
  EXPECT_DOUBLE_EQ(config.rotary.factor, 32.0);

  auto neox = nlohmann::json::parse(std::ifstream(kFixtures + "gpt_neox/config.json"));
  neox.erase("rope_parameters");
  neox["rotary_pct"] = 0.5;
  neox["rotary_emb_base"] = 20000;
  const auto neox_config = parse_model_config(neox, "config.json");
  EXPECT_EQ(neox_config.rotary.dims, 8);
  EXPECT_DOUBLE_EQ(neox_config.rotary.theta, 20000.0);
}

// The message parse_model_config gives for the llama fixture's config with `change` applied.
template <typename Change>
std::string config_error(const std::string& fixture, Change change) {
  auto json = nlohmann::json::parse(std::ifstream(kFixtures + fixture + "/config.json"));
  change(json);
  return error_of([&] { parse_model_config(json, "m/config.json"); });
}

TEST(HfFamilies, UnsupportedOrInconsistentConfigsGetOneLine) {
  EXPECT_EQ(config_error("llama", [](auto& j) { j["rope_parameters"]["rope_type"] = "dynamic"; }),
            "m/config.json (rope_parameters): rope scaling 'dynamic' is not supported (supported: default, linear, llama3, yarn)");
  EXPECT_EQ(config_error("llama", [](auto& j) { j["num_key_value_heads"] = 3; }),
            "m/config.json: 4 attention heads cannot be grouped over 3 key/value heads (num_key_value_heads must "
            "divide num_attention_heads)");
  EXPECT_EQ(config_error("qwen2", [](auto& j) { j["use_sliding_window"] = true; }),
            "m/config.json: use_sliding_window true is not supported for qwen2 (its window starts at max_window_layers)");
  EXPECT_EQ(config_error("gpt_neox", [](auto& j) { j["rope_parameters"]["partial_rotary_factor"] = 0.1875; }),
            "m/config.json: rotary width 3 (head width 16 × 0.187500) must be even and positive");
  EXPECT_EQ(config_error("llama", [](auto& j) {
              j["heads_per_layer"] = {3, 4};
              j["query_groups"] = {{2, 2}, {2, 2}};
            }),
            "m/config.json: query_groups of layer 1 hold 4 query heads but heads_per_block gives it 3");
  EXPECT_EQ(config_error("llama", [](auto& j) { j["query_groups"] = {{3, 1}, {2, 2}}; }),
            "m/config.json: query_groups sizes must be integers in 1..2, got [[3,1],[2,2]]");
  EXPECT_EQ(config_error("llama", [](auto& j) { j["model_type"] = "gemma"; }).substr(0, 50),
            "m/config.json: unknown model_type 'gemma' (known: ");
}

}  // namespace
}  // namespace aw
