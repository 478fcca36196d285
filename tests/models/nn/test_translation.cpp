// tests/models/nn/test_translation.cpp — the encoder–decoder Transformer (models/nn/translation.h) against
// Hugging Face's own Marian and BART classes (tests/support/hf_translation_fixtures.h): logits, encoder
// output, every attention, a padded batch and a head-masked forward to 1e-4; the staged forward at every
// block boundary, gate rows split at any block, the source length check, and the diagonal intervention
// reaching the decoder's self-attention only, a BET(SF) decoder's masked diagonal included (×1 lifting it).
#include "models/attention_kind.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/nn/model.h"
#include "tests/support/hf_translation_fixtures.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>

namespace aw {
namespace {

using test::hf_translation::FixtureModel;
using test::hf_translation::ids_tensor;
using test::hf_translation::load_fixture;
using test::TinyTranslation;

constexpr double kTolerance = 1e-4;

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

TEST(TranslationDiagonal, TheInterventionActsOnTheDecodersSelfAttentionOnly) {
  TinyTranslation tiny(false);
  const auto loaded = tiny.checkpoint("m");
  const auto batch = tiny.data(loaded, 20).inputs.front();
  ForwardOptions plain;
  plain.capture = CaptureMode::Full;
  auto zeroed = plain;
  zeroed.diagonal = DiagonalIntervention::scale(0.0);
  torch::NoGradGuard no_grad;
  const auto before = loaded.model->forward(batch, plain).attention;
  const auto after = loaded.model->forward(batch, zeroed).attention;
  for (int64_t block = 0; block < 2; ++block)  // the encoder's blocks
    EXPECT_TRUE(torch::equal(before[block], after[block])) << block;
  EXPECT_GT((before[2] - after[2]).abs().max().item<double>(), 1e-3);  // the decoder's self-attention
}

// A BET(SF) decoder masks its own diagonal; every diag-sweep factor, 1 included, lifts that mask and
// reaches it: ×1 is the same weights' forward without the mask, not the model as trained.
TEST(TranslationDiagonal, AFactorReachesABirdEyeDecodersMaskedDiagonal) {
  nlohmann::json json = {{"model_type", "transformer_mt"}, {"vocab_size", 20}, {"encoder_layers", 1},
                         {"decoder_layers", 1}, {"n_heads", 2}, {"d_model", 8}, {"d_ff", 16},
                         {"max_positions", 32}, {"dropout", 0.0}, {"decoder_bird_eye", true}};
  torch::manual_seed(6);
  auto model = create_model(parse_model_config(json, "tiny transformer_mt"));
  json["decoder_diag_free_mask"] = false;
  auto unmasked = create_model(parse_model_config(json, "tiny transformer_mt without the mask"));
  test::copy_weights(model->module(), unmasked->module());
  ModelInput input;
  input.input_ids = torch::randint(0, 20, {1, 7}, torch::kLong);
  input.decoder_input_ids = torch::randint(0, 20, {1, 6}, torch::kLong);
  torch::NoGradGuard no_grad;
  auto forward = [&](AttentionModel& which, DiagonalIntervention diagonal) {
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    options.diagonal = diagonal;
    return which.forward(input, options);
  };
  // The decoder's self-attention (block 1) past row 0's diagonal entry: (B, H, 5).
  auto after_row_0 = [](const ForwardResult& result) {
    return result.attention[1].diagonal(0, -2, -1).narrow(-1, 1, 5);
  };
  const auto trained = forward(*model, DiagonalIntervention::none());
  EXPECT_EQ(after_row_0(trained).abs().max().item<double>(), 0.0);  // as trained: masked
  const auto once = forward(*model, DiagonalIntervention::scale(1.0));
  const auto without_mask = forward(*unmasked, DiagonalIntervention::none());
  EXPECT_TRUE(torch::equal(once.logits, without_mask.logits)) << test::max_difference(once.logits, without_mask.logits);
  for (size_t block = 0; block < once.attention.size(); ++block)
    EXPECT_TRUE(torch::equal(once.attention[block], without_mask.attention[block])) << "block " << block;
  EXPECT_GT(after_row_0(once).min().item<double>(), 0.0);
  EXPECT_GT((once.logits - trained.logits).abs().max().item<double>(), 1e-6);  // not the model as trained
  const auto halved = after_row_0(forward(*model, DiagonalIntervention::scale(0.5)));
  const auto doubled = after_row_0(forward(*model, DiagonalIntervention::scale(2.0)));
  EXPECT_GT(halved.min().item<double>(), 0.0);
  EXPECT_GT((doubled - halved).abs().max().item<double>(), 1e-4);
}

}  // namespace
}  // namespace aw
