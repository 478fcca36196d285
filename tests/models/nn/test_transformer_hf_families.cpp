// tests/models/nn/test_transformer_hf_families.cpp — the transformer on llama, mistral, qwen2, gpt_neox,
// qwen3, gemma2, gemma3_text, phi3, olmo2 and the mixtures of experts (mixtral, qwen3_moe, olmoe, gpt_oss)
// against Hugging Face's own classes (tests/support/hf_model_fixtures.h): the ids, logits, every attention
// and a gated head must match to 1e-4; BF16 follows F32, and a float64 model stays float64.
#include "models/checkpoint/checkpoint.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "models/nn/transformer.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::hf_models::compute;
using test::hf_models::read_reference;
using test::max_difference;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
constexpr double kTolerance = 1e-4;

using test::input_of;

void expect_close(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours, theirs, kTolerance, kTolerance)) << what << ": " << max_difference(ours, theirs);
}

class HfFamilies : public ::testing::TestWithParam<std::string> {};

TEST_P(HfFamilies, IdsLogitsAndEveryAttentionAreHuggingFaces) {
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  const auto reference = read_reference(GetParam());
  torch::InferenceMode inference;
  for (const auto& [key, text] : reference.texts.items()) {
    const auto ids = loaded.tokenizer->encode(text.get<std::string>()).ids;
    const auto expected_ids = reference.get("ids_" + key);
    ASSERT_EQ(ids, std::vector<int64_t>(expected_ids.data_ptr<int64_t>(),
                                        expected_ids.data_ptr<int64_t>() + expected_ids.numel()))
        << key;
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto result = loaded.model->forward(input_of(ids), options);
    expect_close(result.logits[0], reference.get("logits_" + key), key + " logits");
    const auto attention = torch::stack(result.attention).select(1, 0);  // (L, H, n, n)
    expect_close(attention, reference.get("attention_" + key), key + " attention");
  }
}

TEST_P(HfFamilies, AGatedHeadIsItsOutputSliceZeroed) {
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  const auto reference = read_reference(GetParam());
  const auto& config = loaded.config;
  torch::InferenceMode inference;
  const auto ids = reference.get("ids_plain");
  ModelInput input;
  input.input_ids = ids.unsqueeze(0);
  ForwardOptions options;
  options.head_gates = torch::ones({config.n_blocks, config.max_heads()});
  options.head_gates[reference.gated_layer][reference.gated_head] = 0.0;
  const auto gated = loaded.model->forward(input, options).logits[0];
  expect_close(gated, reference.get("gated_logits_plain"), "gated logits");
  // …and the gate does something: the ungated logits differ.
  EXPECT_GT((gated - reference.get("logits_plain")).abs().max().item<double>(), 1e-3);
}

TEST_P(HfFamilies, EachLayerMadeAgainIsTheCapturedOne) {
  // What the window does when it shows a layer it does not hold (layer_attention), for these
  // families' rotary positions, groups and windows.
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  const auto reference = read_reference(GetParam());
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = reference.get("ids_special").unsqueeze(0);
  auto& model = *loaded.model;
  ForwardOptions full;
  full.capture = CaptureMode::Full;
  auto hidden = model.embed(input);
  for (int64_t layer = 0; layer < loaded.config.n_blocks; ++layer) {
    const auto made = model.layer_attention(hidden, input, layer, {});
    auto run = model.run_layers(hidden, input, layer, layer + 1, full);
    EXPECT_TRUE(torch::equal(made, run.attention.front())) << "layer " << layer;
    hidden = run.hidden;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfFamilies,
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential",
                                           "qwen3", "qwen3_bias", "gemma2", "gemma2_global_first", "gemma3",
                                           "gemma3_capped", "phi3", "phi3_grouped", "olmo2", "olmo2_bias", "mixtral",
                                           "qwen3_moe", "olmoe", "gpt_oss", "gpt_oss_mxfp4"));

class ReducedPrecision : public ::testing::TestWithParam<std::string> {};

TEST_P(ReducedPrecision, Bf16FollowsF32AndKeepsLogitsAndAttentionInF32) {
  const auto reference = compute(load_checkpoint(kFixtures + GetParam()), GetParam());
  for (const auto dtype : {torch::kBFloat16}) {  // F16 computes on CUDA only
    const auto loaded = load_checkpoint(kFixtures + GetParam(), torch::kCPU, dtype);
    EXPECT_EQ(loaded.dtype, dtype);
    for (const auto& parameter : loaded.model->module().parameters()) EXPECT_EQ(parameter.scalar_type(), dtype);
    EXPECT_EQ(loaded.mapped_bytes, 0);  // stored as F32: converted, not mapped
    const auto computed = compute(loaded, GetParam());
    EXPECT_EQ(computed.logits.scalar_type(), torch::kFloat32);
    EXPECT_EQ(computed.attention.scalar_type(), torch::kFloat32);
    // BF16 keeps 8 bits of mantissa: relative error ~2^-8 per rounding, a few roundings deep. These
    // fixtures' scores are large (peaked attention), where a rounded score moves a probability most:
    // up to 0.05 measured; a wrong rotation or mask moves them by 0.5. Logits: under 3 % of the
    // largest with LibTorch 1.13, 3.06 % (mistral) with PyTorch 2.11's oneDNN BF16 kernels.
    const double tolerance = 0.04, attention_tolerance = 0.1;
    const double scale = reference.logits.abs().max().item<double>();
    EXPECT_LT((computed.logits - reference.logits).abs().max().item<double>(), tolerance * scale)
        << dtype_name(dtype) << ": " << max_difference(computed.logits, reference.logits);
    EXPECT_LT((computed.attention - reference.attention).abs().max().item<double>(), attention_tolerance)
        << dtype_name(dtype) << ": " << max_difference(computed.attention, reference.attention);
  }
}

// Not gemma2 and phi3: on their fixtures Hugging Face's own BF16 logits are as far from its F32 ones
// as the bound allows ours (0.48 of 3.0, 0.31 of 7.4: scripts/fixtures/bf16_spread.py), which says
// nothing of ours.
INSTANTIATE_TEST_SUITE_P(Fixtures, ReducedPrecision,
                         ::testing::Values("llama", "mistral", "gpt_neox", "qwen3", "gemma3", "olmo2"));

TEST(ReducedPrecision, AFloat64ModelStaysFloat64ThroughRmsNormAndSoftmax) {
  // The gradient checks (finite differences) run models in float64: nothing may round them to float32.
  auto loaded = load_checkpoint(kFixtures + "llama");
  loaded.model->module().to(torch::kFloat64);
  const auto computed = compute(loaded, "llama");
  EXPECT_EQ(computed.logits.scalar_type(), torch::kFloat64);
  EXPECT_EQ(computed.attention.scalar_type(), torch::kFloat64);
  const auto expected = read_reference("llama").get("logits_special").to(torch::kFloat64);
  EXPECT_TRUE(torch::allclose(computed.logits, expected, kTolerance, kTolerance)) << max_difference(computed.logits, expected);
  // The norm itself: float64 in, float64 out, equal to its formula in float64.
  Norm norm(4, 1e-6, NormKind::RmsNorm);
  norm->to(torch::kFloat64);
  const auto x = torch::tensor({1.0, 2.0, 3.0, 4.0 + 1e-12}, torch::kFloat64);  // 1e-12: lost in float32
  const auto expected_norm = x / torch::sqrt((x * x).mean() + 1e-6);
  EXPECT_TRUE(torch::allclose(norm(x), expected_norm, 1e-14, 1e-14)) << max_difference(norm(x), expected_norm);
  EXPECT_EQ(norm(x).scalar_type(), torch::kFloat64);
}

}  // namespace
}  // namespace aw
