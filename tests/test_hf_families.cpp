// tests/test_hf_families.cpp — llama, mistral, qwen2 and gpt_neox against Hugging Face's own classes:
// scripts/fixtures/make_hf_decoder_fixtures.py built tiny random models of each family with transformers (eager
// attention) and saved the ids, logits and attention they give for two texts, and the logits with
// one head's slice of the output projection zeroed. The folders load as a researcher's download
// would; the logits, every attention and a gated head must match to 1e-4. Bad configs get one line.
#include "analysis/heads/head_removal.h"
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/nn/transformer.h"
#include "models/runtime.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace aw {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::max_difference;
using test::TempDir;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";
constexpr double kTolerance = 1e-4;

struct Reference {
  std::shared_ptr<const SafetensorsFile> file;
  nlohmann::json texts;
  int64_t gated_layer = 0, gated_head = 0;
  torch::Tensor get(const std::string& name) const { return file->tensor(name).clone(); }
};

Reference read_reference(const std::string& name) {
  Reference reference;
  reference.file = SafetensorsFile::open(kFixtures + name + "/expected.safetensors");
  const auto& metadata = reference.file->metadata();
  reference.texts = nlohmann::json::parse(metadata.at("texts"));
  reference.gated_layer = std::stoll(metadata.at("gated_layer"));
  reference.gated_head = std::stoll(metadata.at("gated_head"));
  return reference;
}

ModelInput input_of(const std::vector<int64_t>& ids) {
  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0);
  return input;
}

void expect_close(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours, theirs, kTolerance, kTolerance)) << what << ": " << max_difference(ours, theirs);
}

class HfFamilies : public ::testing::TestWithParam<std::string> {};

// The message parse_model_config gives for the llama fixture's config with `change` applied.
template <typename Change>
std::string config_error(const std::string& fixture, Change change) {
  auto json = nlohmann::json::parse(std::ifstream(kFixtures + fixture + "/config.json"));
  change(json);
  return error_of([&] { parse_model_config(json, "m/config.json"); });
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

}  // namespace
}  // namespace aw

namespace aw {
namespace {

// The fixture `name` copied into `dir` with its weights stored as `dtype`.
void write_stored_as(const std::string& name, const TempDir& dir, torch::ScalarType dtype) {
  for (const auto& entry : fs::directory_iterator(kFixtures + name)) fs::copy(entry.path(), dir.path());
  const auto file = SafetensorsFile::open(kFixtures + name + "/model.safetensors");
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& tensor : file->names()) tensors.emplace_back(tensor, file->tensor(tensor).to(dtype));
  write_safetensors(dir.file("model.safetensors"), tensors, {{"format", "pt"}});
}

struct Computed {
  torch::Tensor logits, attention;
};

Computed compute(const LoadedModel& loaded, const std::string& fixture) {
  torch::InferenceMode inference;
  ModelInput input;
  input.input_ids = read_reference(fixture).get("ids_special").unsqueeze(0);
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  auto result = loaded.model->forward(input, options);
  return {result.logits[0], torch::stack(result.attention).select(1, 0)};
}

class ReducedPrecision : public ::testing::TestWithParam<std::string> {};

}  // namespace
}  // namespace aw
