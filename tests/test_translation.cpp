// tests/test_translation.cpp — the encoder–decoder Transformer against Hugging Face's own Marian and
// BART classes: tests/fixtures/hf/{marian_tiny,bart_tiny} hold tiny random models saved by
// scripts/fixtures/make_hf_fixtures.py with the logits, encoder output, every encoder, decoder and cross
// attention, a head-masked forward, and greedy and beam-search outputs that transformers computed for
// a few source/target pairs. Everything must match to the fixture's tolerance (1e-4). Also: the staged
// forward (run_layers in two parts) equals the whole forward at every block boundary, a native
// transformer_mt model learns a toy copy task, and the errors of bad translation inputs.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "models/nn/translation.h"
#include "models/translation/beam_search.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

constexpr double kTolerance = 1e-4;

std::string fixture_dir(const std::string& name) { return std::string(AW_SOURCE_DIR) + "/tests/fixtures/hf/" + name; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

torch::Tensor ids_tensor(const nlohmann::json& ids) {
  if (ids.at(0).is_array()) {
    std::vector<torch::Tensor> rows;
    for (const auto& row : ids) rows.push_back(torch::tensor(row.get<std::vector<int64_t>>(), torch::kLong));
    return torch::stack(rows);
  }
  return torch::tensor(ids.get<std::vector<int64_t>>(), torch::kLong).unsqueeze(0);
}

// A fixture model: config, weights (no tokenizer needed: the reference gives the ids).
struct FixtureModel {
  ModelConfig config;
  std::shared_ptr<TranslationTransformerImpl> model;
  nlohmann::json reference;
  std::shared_ptr<const SafetensorsFile> tensors;
};

FixtureModel load_fixture(const std::string& name) {
  FixtureModel fixture;
  const auto dir = fixture_dir(name);
  fixture.config = read_model_config(dir);
  fixture.model = std::dynamic_pointer_cast<TranslationTransformerImpl>(create_model(fixture.config, false));
  load_weights(*fixture.model, *SafetensorsFile::open(dir + "/model.safetensors"));
  fixture.model->eval();
  fixture.reference = read_json(dir + "/reference.json");
  fixture.tensors = SafetensorsFile::open(dir + "/reference.safetensors");
  return fixture;
}

void expect_close(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours.to(torch::kFloat64), theirs.to(torch::kFloat64), kTolerance, kTolerance))
      << what << ": " << test::max_difference(ours, theirs);
}

ModelInput case_input(const nlohmann::json& item) {
  ModelInput input;
  input.input_ids = ids_tensor(item.at("input_ids"));
  input.decoder_input_ids = ids_tensor(item.at("decoder_input_ids"));
  if (item.contains("attention_mask")) input.attention_mask = ids_tensor(item.at("attention_mask"));
  if (item.contains("decoder_attention_mask")) input.decoder_attention_mask = ids_tensor(item.at("decoder_attention_mask"));
  return input;
}

// Compares one forward (capturing everything) with the reference tensors named `prefix`.*.
void expect_forward_matches(FixtureModel& fixture, const ModelInput& input, const std::string& prefix) {
  torch::NoGradGuard no_grad;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  const auto result = fixture.model->forward(input, options);
  const auto& config = fixture.config;
  const auto& tensors = *fixture.tensors;
  auto mask_rows = [&](torch::Tensor t, const torch::Tensor& mask) {
    // Padded query rows are not defined the same way by both (HF fills them from its mask): compare real rows.
    if (!mask.defined()) return t;
    return t * mask.view({mask.size(0), 1, mask.size(1), 1}).to(t.dtype());
  };
  auto logits_mask = input.decoder_attention_mask;
  auto logits = result.logits, reference_logits = tensors.tensor(prefix + ".logits");
  if (logits_mask.defined()) {
    logits = logits * logits_mask.unsqueeze(-1).to(logits.dtype());
    reference_logits = reference_logits * logits_mask.unsqueeze(-1).to(logits.dtype());
  }
  expect_close(logits, reference_logits, prefix + ".logits");
  auto memory = fixture.model->encode(input).hidden;
  auto reference_memory = tensors.tensor(prefix + ".encoder_hidden");
  if (input.attention_mask.defined()) {
    memory = memory * input.attention_mask.unsqueeze(-1).to(memory.dtype());
    reference_memory = reference_memory * input.attention_mask.unsqueeze(-1).to(memory.dtype());
  }
  expect_close(memory, reference_memory, prefix + ".encoder_hidden");
  ASSERT_EQ(static_cast<int64_t>(result.attention.size()), config.n_blocks);
  for (int64_t block = 0; block < config.n_blocks; ++block) {
    const auto where = config.attention_block(block);
    const std::string name = where.kind == AttentionKind::Encoder   ? "encoder_attention"
                             : where.kind == AttentionKind::Decoder ? "decoder_attention"
                                                                    : "cross_attention";
    const auto key = prefix + "." + name + "." + std::to_string(where.layer);
    const auto& row_mask = where.kind == AttentionKind::Encoder ? input.attention_mask : input.decoder_attention_mask;
    expect_close(mask_rows(result.attention[block], row_mask), mask_rows(tensors.tensor(key), row_mask), key);
  }
}

class HfTranslation : public ::testing::TestWithParam<std::string> {};

TEST_P(HfTranslation, ForwardMatchesTransformersForEveryCase) {
  auto fixture = load_fixture(GetParam());
  const auto& cases = fixture.reference.at("cases");
  ASSERT_GE(cases.size(), 3u);
  for (size_t index = 0; index < cases.size(); ++index)
    expect_forward_matches(fixture, case_input(cases[index]), "case" + std::to_string(index));
}

TEST_P(HfTranslation, PaddedBatchMatchesTransformers) {
  auto fixture = load_fixture(GetParam());
  expect_forward_matches(fixture, case_input(fixture.reference.at("batch")), "batch");
}

TEST_P(HfTranslation, HeadGatesMatchTheReferenceHeadMask) {
  auto fixture = load_fixture(GetParam());
  const auto& head_mask = fixture.reference.at("head_mask");
  const auto& config = fixture.config;
  auto gates = torch::ones({config.n_blocks, config.max_heads()});
  const std::pair<const char*, AttentionKind> kinds[] = {
      {"encoder", AttentionKind::Encoder}, {"decoder", AttentionKind::Decoder}, {"cross", AttentionKind::Cross}};
  for (const auto& [name, kind] : kinds) {
    const auto& layers = head_mask.at("mask").at(name);
    for (size_t layer = 0; layer < layers.size(); ++layer)
      for (size_t head = 0; head < layers[layer].size(); ++head)
        gates[config.block_index(kind, static_cast<int64_t>(layer))][static_cast<int64_t>(head)] =
            layers[layer][head].get<double>();
  }
  ForwardOptions options;
  options.head_gates = gates;
  torch::NoGradGuard no_grad;
  const auto& item = fixture.reference.at("cases").at(head_mask.at("case").get<size_t>());
  const auto logits = fixture.model->forward(case_input(item), options).logits;
  expect_close(logits, fixture.tensors->tensor(head_mask.at("tensor").get<std::string>()), "head-masked logits");
}

// The generated ids after the decoder start, without the final EOS (what Hypothesis::ids holds).
std::vector<int64_t> generated(const nlohmann::json& ids, int64_t eos) {
  auto values = ids.get<std::vector<int64_t>>();
  values.erase(values.begin());
  if (!values.empty() && values.back() == eos) values.pop_back();
  return values;
}

TEST_P(HfTranslation, GreedyAndBeamSearchMatchGenerate) {
  auto fixture = load_fixture(GetParam());
  const auto eos = fixture.config.translation.eos_id;
  const auto max_new = fixture.reference.at("generation").at("greedy_kwargs").at("max_new_tokens").get<int64_t>();
  const auto beams = fixture.reference.at("generation").at("beam_kwargs").at("num_beams").get<int64_t>();
  for (const auto& item : fixture.reference.at("cases")) {
    ModelInput source;
    source.input_ids = ids_tensor(item.at("input_ids"));
    const auto greedy = translate_rows(*fixture.model, source, {1, 1.0, max_new});
    EXPECT_EQ(greedy.at(0).ids, generated(item.at("greedy_ids"), eos)) << item.at("source");
    const auto beam = translate_rows(*fixture.model, source, {beams, 1.0, max_new});
    EXPECT_EQ(beam.at(0).ids, generated(item.at("beam_ids"), eos)) << item.at("source");
    if (item.contains("beam_score")) EXPECT_NEAR(beam.at(0).score, item.at("beam_score").get<double>(), kTolerance);
  }
}

TEST_P(HfTranslation, StagedForwardEqualsTheWholeForwardAtEveryBlock) {
  auto fixture = load_fixture(GetParam());
  auto& model = *fixture.model;
  const auto input = case_input(fixture.reference.at("batch"));
  torch::NoGradGuard no_grad;
  const auto whole = model.forward(input).logits;
  for (int64_t block = 0; block <= fixture.config.n_blocks; ++block) {
    const auto lower = model.run_layers(model.embed(input), input, 0, block, {}).hidden;
    const auto upper = model.run_layers(lower, input, block, fixture.config.n_blocks, {}).hidden;
    expect_close(model.output(upper, input), whole, "split at block " + std::to_string(block));
  }
}

// Gate sweeps hand the model gates of k·B rows for B rows (k settings that share every gate below
// the call's first block): each setting's rows must equal that setting's own whole forward, for a
// split at every block — encoder, decoder self and cross, where the rows part ways only at the
// cross-attention — on the padded batch.
TEST_P(HfTranslation, GateSettingsSplittingTheRowsAtAnyBlockEqualEachSettingsOwnForward) {
  auto fixture = load_fixture(GetParam());
  auto& model = *fixture.model;
  const auto& config = fixture.config;
  ASSERT_TRUE(model.splits_rows_at_gates());
  const auto input = case_input(fixture.reference.at("batch"));
  const int64_t rows = input.input_ids.size(0), settings = 3;
  torch::NoGradGuard no_grad;
  torch::manual_seed(7);
  for (int64_t block = 0; block < config.n_blocks; ++block) {
    // Settings alike below `block`, different from it up.
    const auto common = torch::rand({config.n_blocks, config.max_heads()});
    auto gates = common.unsqueeze(0).repeat({settings, 1, 1});
    gates.narrow(1, block, config.n_blocks - block).uniform_();
    ForwardOptions lower_options;
    lower_options.head_gates = common;
    const auto lower = model.run_layers(model.embed(input), input, 0, block, lower_options).hidden;
    ForwardOptions upper_options;
    upper_options.head_gates = gates.repeat_interleave(rows, 0);                          // (k·B, L, H)
    const auto upper = model.run_layers(lower, input, block, config.n_blocks, upper_options).hidden;
    ASSERT_EQ(upper.size(0), settings * rows) << "block " << block;
    const auto repeated = input.map([&](const torch::Tensor& t) { return t.repeat({settings, 1}); });
    const auto logits = model.output(upper, repeated);
    for (int64_t s = 0; s < settings; ++s) {
      ForwardOptions own;
      own.head_gates = gates[s];
      expect_close(logits.narrow(0, s * rows, rows), model.forward(input, own).logits,
                   "block " + std::to_string(block) + ", setting " + std::to_string(s));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfTranslation, ::testing::Values("marian_tiny", "bart_tiny"));

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

TEST(TranslationCheckpoint, MarianFolderLoadsWithBothTokenizers) {
  const auto loaded = load_checkpoint(fixture_dir("marian_tiny"));
  ASSERT_TRUE(loaded.target_tokenizer);
  EXPECT_NE(loaded.target_tokenizer, loaded.tokenizer);
  EXPECT_EQ(loaded.tokenizer->kind(), "sentencepiece");
}

TEST(TranslationCheckpoint, MarianFolderWithoutItsSpmFilesIsRefused) {
  test::TempDir dir;
  for (const auto* name : {"config.json", "model.safetensors", "vocab.json", "target.spm"})
    std::filesystem::copy_file(fixture_dir("marian_tiny") + "/" + name, dir.file(name));
  try {
    load_checkpoint(dir.path());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + ": no source.spm in this folder");
  }
}

TEST(TranslationModel, SourceLongerThanThePositionsIsRefused) {
  auto fixture = load_fixture("marian_tiny");
  ModelInput input;
  input.input_ids = torch::zeros({1, 65}, torch::kLong);
  input.decoder_input_ids = torch::zeros({1, 2}, torch::kLong);
  try {
    fixture.model->forward(input);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the source has 65 tokens; the model has 64 positions");
  }
}

}  // namespace
}  // namespace aw
