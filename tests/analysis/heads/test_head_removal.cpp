// tests/analysis/heads/test_head_removal.cpp — a model with heads removed computes what the gated model
// computes, and saves back: tiny, translation and Hugging Face families (analysis/heads/head_removal)
#include "analysis/heads/head_removal.h"
#include "analysis/core/head_gates.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/runtime.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_translation.h"
#include "tests/support/tiny_windows.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::max_difference;
using test::TempDir;
using test::tiny_batches;
using test::TinyTranslation;
using test::hf_models::read_reference;

// The fixture folders of hf_model_fixtures.h, under the name these tests were written with.
const std::string kFixtures = test::hf_models::kFolder;

class HeadRemoval : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadRemoval, PrunedModelComputesWhatTheGatedModelComputes) {
  TempDir dir;
  const auto config = test::tiny_config(GetParam());
  test::write_tiny_checkpoint(dir.path(), config);
  auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  // Layer 1 loses its middle head; layer 2 loses two of three.
  const std::vector<HeadRef> removed = {{0, 1}, {1, 0}, {1, 2}};
  const auto pruned = remove_heads(*loaded.model, removed);
  EXPECT_EQ(pruned->config().heads_per_block, (std::vector<int64_t>{2, 1}));

  auto gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gates[head.layer][head.head] = 0.0;
  const auto batch = tiny_batches().back();  // padded
  ForwardOptions gated;
  gated.head_gates = gates;
  gated.capture = CaptureMode::Full;
  ForwardOptions plain;
  plain.capture = CaptureMode::Full;
  torch::NoGradGuard no_grad;
  const auto expected = loaded.model->forward(batch, gated);
  const auto got = pruned->forward(batch, plain);
  EXPECT_TRUE(torch::allclose(got.logits, expected.logits, 1e-5, 1e-5)) << test::max_difference(got.logits, expected.logits);
  ASSERT_EQ(got.attention[1].size(1), 1);
  // The remaining heads attend exactly as before (layer 1: heads 1 and 3; layer 2: head 2).
  EXPECT_TRUE(torch::allclose(got.attention[0].select(1, 1), expected.attention[0].select(1, 2), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(got.attention[1].select(1, 0), expected.attention[1].select(1, 1), 1e-5, 1e-6));

  // Saved and loaded again: same numbers, fewer parameters, heads_per_block in config.json.
  TempDir saved;
  save_native_checkpoint(saved.path(), *pruned, test::tiny_vocabulary(config.vocab_size));
  auto reloaded = load_checkpoint(saved.path(), torch::kCPU);
  EXPECT_EQ(reloaded.config.heads_per_block, (std::vector<int64_t>{2, 1}));
  EXPECT_LT(reloaded.parameter_count, loaded.parameter_count);
  EXPECT_TRUE(torch::allclose(reloaded.model->forward(batch).logits, expected.logits, 1e-5, 1e-5));

  EXPECT_THROW(remove_heads(*loaded.model, {{0, 1}, {0, 1}}), Error);
  EXPECT_THROW(remove_heads(*loaded.model, {{2, 0}}), Error);
}

INSTANTIATE_TEST_SUITE_P(Models, HeadRemoval, ::testing::Values("transformer_lm", "bet_sf"));

TEST(TranslationPruning, RemovedHeadsComputeWhatTheGatedModelComputes) {
  TinyTranslation tiny;
  const auto loaded = tiny.checkpoint("m");
  const std::vector<HeadRef> removed{{0, 1}, {2, 0}, {3, 1}};  // one head of enc 1, dec 1 and cross 1
  const auto pruned = remove_heads(*loaded.model, removed);
  EXPECT_EQ(pruned->config().heads_per_block, (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_LT(count_parameters(*pruned), count_parameters(*loaded.model));
  const auto batch = tiny.data(loaded, 20).inputs.front();
  ForwardOptions gated;
  gated.head_gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gated.head_gates[head.layer][head.head] = 0.0;
  torch::NoGradGuard no_grad;
  const auto expected = loaded.model->forward(batch, gated).logits;
  const auto actual = pruned->forward(batch, {}).logits;
  EXPECT_TRUE(torch::allclose(actual, expected, 1e-5, 1e-5)) << test::max_difference(actual, expected);
  // Saved with its spm.model and loaded back, it is the same model.
  save_native_checkpoint(tiny.dir.file("pruned"), *pruned, tiny.pieces(), torch::kFloat32,
                         loaded.dir + "/spm.model");
  const auto reloaded = load_checkpoint(tiny.dir.file("pruned"), torch::kCPU);
  const auto again = reloaded.model->forward(batch, {}).logits;
  EXPECT_TRUE(torch::allclose(again, expected, 1e-5, 1e-5)) << test::max_difference(again, expected);
}

// Logits of `loaded`'s model for the fixture's first text with `gates` (undefined = all on).
torch::Tensor plain_logits(AttentionModel& model, const std::string& fixture, const torch::Tensor& gates = {}) {
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = read_reference(fixture).get("ids_plain").unsqueeze(0);
  ForwardOptions options;
  options.head_gates = gates;
  return model.forward(input, options).logits;
}

// The same with the heads `off` switched off by their gates (the 2 × 4-head fixtures).
torch::Tensor logits_without(const LoadedModel& loaded, const std::string& fixture, const std::vector<HeadRef>& off) {
  auto gates = torch::ones({2, 4});
  for (const auto& head : off) gates[head.layer][head.head] = 0.0;
  return plain_logits(*loaded.model, fixture, gates);
}

TEST(HfFamilies, PruningRemovesQueryHeadsAndAKeyValueHeadOnlyWithItsLastQueryHead) {
  // llama: 4 query heads over 2 key/value heads per layer. Layer 1 loses its first group entirely,
  // layer 2 one head of its second group: that group's key/value head stays.
  const auto loaded = load_checkpoint(kFixtures + "llama");
  const std::vector<HeadRef> removed = {{0, 0}, {0, 1}, {1, 2}};
  const auto gated = logits_without(loaded, "llama", removed);

  const auto pruned = remove_heads(*loaded.model, removed);
  const auto& config = pruned->config();
  EXPECT_EQ(config.heads_per_block, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(config.decoder.query_groups, (std::vector<std::vector<int64_t>>{{2}, {2, 1}}));
  const auto parameters = pruned->module().named_parameters();
  EXPECT_EQ(parameters["layers.0.attn.k.weight"].size(0), 8);   // one key/value head of width 8 left
  EXPECT_EQ(parameters["layers.1.attn.v.weight"].size(0), 16);  // both left
  EXPECT_EQ(parameters["layers.1.attn.q.weight"].size(0), 24);
  EXPECT_LT(count_parameters(*pruned), count_parameters(*loaded.model));
  const auto after = plain_logits(*pruned, "llama");
  EXPECT_TRUE(torch::allclose(after, gated, 1e-5, 1e-5)) << max_difference(after, gated);

  // Saved with the family's names and tokenizer, it reads back as the same model.
  TempDir dir;
  save_hugging_face_checkpoint(dir.path(), *pruned, loaded.dir, torch::kFloat32);
  const auto reloaded = load_checkpoint(dir.path());
  EXPECT_EQ(reloaded.config.decoder.query_groups, config.decoder.query_groups);
  EXPECT_TRUE(torch::equal(plain_logits(*reloaded.model, "llama"), after));
  EXPECT_EQ(reloaded.tokenizer->vocab_size(), loaded.tokenizer->vocab_size());
}

TEST(HfFamilies, APrunedGptNeoxIsWrittenBackWithItsFusedQkv) {
  const auto loaded = load_checkpoint(kFixtures + "gpt_neox");
  const std::vector<HeadRef> removed = {{0, 1}, {1, 0}, {1, 3}};
  const auto gated = logits_without(loaded, "gpt_neox", removed);
  const auto pruned = remove_heads(*loaded.model, removed);
  TempDir dir;
  save_hugging_face_checkpoint(dir.path(), *pruned, loaded.dir, torch::kFloat32);
  const auto file = SafetensorsFile::open(dir.file("model.safetensors"));
  EXPECT_EQ(file->record("layers.1.attention.query_key_value.weight").shape, (std::vector<int64_t>{2 * 3 * 16, 64}));
  const auto reloaded = load_checkpoint(dir.path());
  EXPECT_EQ(reloaded.config.heads_per_block, (std::vector<int64_t>{3, 2}));
  const auto after = plain_logits(*reloaded.model, "gpt_neox");
  EXPECT_TRUE(torch::allclose(after, gated, 1e-5, 1e-5)) << max_difference(after, gated);
}

// The newer families: pruned, each computes what its gated model computes, and written back under
// its own names (Phi-3's fused q|k|v and gate|up rows included) it reads back as the same model.
class NewerFamiliesPruning : public ::testing::TestWithParam<std::string> {};

TEST_P(NewerFamiliesPruning, RemovedHeadsComputeWhatTheGatedModelComputesAndSaveBack) {
  const auto loaded = load_checkpoint(kFixtures + GetParam());
  const std::vector<HeadRef> removed = {{0, 1}, {1, 0}, {1, 3}};
  const auto gated = logits_without(loaded, GetParam(), removed);
  const auto pruned = remove_heads(*loaded.model, removed);
  EXPECT_EQ(pruned->config().heads_per_block, (std::vector<int64_t>{3, 2}));
  const auto after = plain_logits(*pruned, GetParam());
  // Logits up to 70 (Gemma's √d embeddings): float32 rounding of other shapes reaches 2e-5.
  EXPECT_TRUE(torch::allclose(after, gated, 1e-4, 1e-4)) << max_difference(after, gated);
  TempDir dir;
  save_hugging_face_checkpoint(dir.path(), *pruned, loaded.dir, torch::kFloat32);
  const auto reloaded = load_checkpoint(dir.path());
  EXPECT_EQ(reloaded.config.heads_per_block, (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(torch::equal(plain_logits(*reloaded.model, GetParam()), after));
}

INSTANTIATE_TEST_SUITE_P(Families, NewerFamiliesPruning,
                         ::testing::Values("qwen3", "gemma2", "gemma3", "phi3", "phi3_grouped"));

TEST(HfFamilies, Olmo2IsNotPrunedBecauseItsNormsSpanEveryHead) {
  const auto loaded = load_checkpoint(kFixtures + "olmo2");
  EXPECT_EQ(test::error_of([&] { remove_heads(*loaded.model, {{0, 1}}); }),
            "real pruning supports the native transformer_lm, bet_sf, bet_sg and transformer_mt models and "
            "the llama, mistral, qwen2, gpt_neox, qwen3, gemma2, gemma3_text, phi3, mixtral and qwen3_moe families, "
            "not olmo2 (its query and key norms span every head of a layer: removing one changes the others)");
  const auto oss = load_checkpoint(kFixtures + "gpt_oss");
  EXPECT_NE(test::error_of([&] { remove_heads(*oss.model, {{0, 1}}); })
                .find("not gpt_oss (its heads' learned sinks are not written back by a pruned save)"),
            std::string::npos);
}

}  // namespace
}  // namespace aw
