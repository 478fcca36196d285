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
                         ::testing::Values("llama", "llama_bias", "mistral", "qwen2", "gpt_neox", "gpt_neox_sequential"));

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
  EXPECT_EQ(config_error("llama", [](auto& j) { j["rope_parameters"]["rope_type"] = "yarn"; }),
            "m/config.json (rope_parameters): rope scaling 'yarn' is not supported (supported: default, linear, llama3)");
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

TEST(HfFamilies, FolderProblemsNameTheFile) {
  TempDir dir;
  for (const auto& entry : fs::directory_iterator(kFixtures + "qwen2")) fs::copy(entry.path(), dir.path());
  // A tokenizer with more tokens than the embedding has rows.
  auto config = nlohmann::json::parse(std::ifstream(dir.file("config.json")));
  config["vocab_size"] = 300;
  std::ofstream(dir.file("config.json")) << config.dump();
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file("tokenizer.json") + ": has 420 tokens but the model's embedding has 300 rows");
  // A config with more layers than the file holds.
  config["vocab_size"] = 420;
  config["num_hidden_layers"] = 3;
  std::ofstream(dir.file("config.json")) << config.dump();
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file("config.json") + ": describes a model of at least 31872 weights, but model.safetensors holds only "
                                      "29088 values; they do not belong together");
  // A tensor of the wrong shape: key/value heads that do not match the file.
  config["num_hidden_layers"] = 2;
  config["num_key_value_heads"] = 4;
  std::ofstream(dir.file("config.json")) << config.dump();
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file("model.safetensors") + ": tensor 'model.layers.0.self_attn.k_proj.weight' has shape [16, 32] but "
                                            "the config needs [32, 32]");
  // A weight missing from the file.
  config["num_key_value_heads"] = 2;
  std::ofstream(dir.file("config.json")) << config.dump();
  {
    const auto file = SafetensorsFile::open(dir.file("model.safetensors"));
    std::vector<std::pair<std::string, torch::Tensor>> kept;
    for (const auto& name : file->names())
      if (name != "model.layers.1.mlp.gate_proj.weight") kept.emplace_back(name, file->tensor(name).clone());
    write_safetensors(dir.file("model.safetensors"), kept);
  }
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }),
            dir.file("model.safetensors") +
                ": missing tensor 'layers.1.mlp.gate_proj.weight' (a qwen2 model with this config needs it)");
  // No tokenizer.json.
  fs::remove(dir.file("tokenizer.json"));
  EXPECT_EQ(error_of([&] { load_checkpoint(dir.path()); }), dir.path() + ": no tokenizer.json in this folder");
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

INSTANTIATE_TEST_SUITE_P(Fixtures, ReducedPrecision, ::testing::Values("llama", "mistral", "gpt_neox"));

TEST(ReducedPrecision, WeightsStoredInTheComputeDtypeAreUsedInPlaceFromTheFile) {
  TempDir dir;
  write_stored_as("llama", dir, torch::kBFloat16);
  const auto mapped = load_checkpoint(dir.path(), torch::kCPU, torch::kBFloat16);
  int64_t weight_bytes = 0;
  for (const auto& parameter : mapped.model->module().parameters()) weight_bytes += parameter.numel() * 2;
  EXPECT_EQ(mapped.mapped_bytes, weight_bytes);
  EXPECT_EQ(mapped.stored_dtype, "BF16");
  // The same numbers as the copied weights give: mapping changes where they live, not what they are.
  const auto copied = load_checkpoint(dir.path(), torch::kCPU, torch::kFloat32);
  EXPECT_EQ(copied.mapped_bytes, 0);
  const auto from_mapped = compute(mapped, "llama");
  const auto in_f32 = compute(copied, "llama");
  EXPECT_LT((from_mapped.logits - in_f32.logits).abs().max().item<double>(),
            0.1 * in_f32.logits.abs().max().item<double>());
  // The default on the CPU is F32.
  EXPECT_EQ(load_checkpoint(dir.path()).dtype, torch::kFloat32);
}

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

TEST(ReducedPrecision, Bf16UsesEveryCoreUnlessAskedOtherwise) {
  EXPECT_EQ(default_threads_for(torch::kFloat32), kDefaultThreads);
  EXPECT_EQ(default_threads_for(torch::kBFloat16), std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
  const int before = torch::get_num_threads();
  EXPECT_EQ(configure_threads(3, torch::kBFloat16), 3);  // asked: asked wins
  EXPECT_EQ(configure_threads(0, torch::kBFloat16),
            std::getenv("AW_THREADS") ? std::atoi(std::getenv("AW_THREADS")) : default_threads_for(torch::kBFloat16));
  configure_threads(0);
  torch::set_num_threads(before);
}

// For F32 a thread count asked for goes to OpenBLAS's pool (one core for `--threads 1`) while LibTorch
// keeps one thread, so the two pools never compete; none asked for gives OpenBLAS its own default back.
TEST(Runtime, ThreadsAskedForGoToOpenBlasForF32) {
  if (blas_threads() < 0) GTEST_SKIP() << "the BLAS is not OpenBLAS";
  if (std::getenv("AW_THREADS")) GTEST_SKIP() << "AW_THREADS chooses the count here";
  const int torch_before = torch::get_num_threads();
  configure_threads(0);
  const int blas_default = blas_threads();
  EXPECT_EQ(configure_threads(1), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (1 thread)");
  EXPECT_EQ(configure_threads(3), kDefaultThreads);  // F32: LibTorch keeps its one thread
  EXPECT_EQ(blas_threads(), 3);
  EXPECT_EQ(describe_device(torch::kCPU), "CPU (3 threads)");
  EXPECT_EQ(configure_threads(3, torch::kBFloat16), 3);  // BF16: LibTorch's threads do the products
  EXPECT_EQ(blas_threads(), 3);
  configure_threads(0);
  EXPECT_EQ(blas_threads(), blas_default);
  EXPECT_EQ(torch::get_num_threads(), kDefaultThreads);
  torch::set_num_threads(torch_before);
}

TEST(ReducedPrecision, DtypeNamesAndFamiliesThatComputeInF32Only) {
  EXPECT_EQ(parse_compute_dtype("bf16"), torch::kBFloat16);
  EXPECT_EQ(parse_compute_dtype("auto"), std::nullopt);
  EXPECT_EQ(error_of([] { parse_compute_dtype("fp8"); }), "--dtype 'fp8': expected f32, bf16, f16 or auto");
  const auto lama = test::tiny_lama_config();
  EXPECT_EQ(error_of([&] { resolve_compute_dtype(torch::kFloat16, torch::kCPU, lama); }),
            "--dtype f16: lama models compute in f32 only (recurrent and translation models)");
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::Device(torch::kCUDA, 0), lama), torch::kFloat32);
  const auto llama = read_model_config(kFixtures + "llama");
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::Device(torch::kCUDA, 0), llama), torch::kBFloat16);
  EXPECT_EQ(resolve_compute_dtype(std::nullopt, torch::kCPU, llama), torch::kFloat32);
  EXPECT_EQ(error_of([&] { resolve_compute_dtype(torch::kFloat16, torch::kCPU, llama); }),
            "--dtype f16 needs CUDA: LibTorch's CPU kernels have no half-precision matrix product (use bf16 or f32)");
  EXPECT_EQ(resolve_compute_dtype(torch::kFloat16, torch::Device(torch::kCUDA, 0), llama), torch::kFloat16);
}

}  // namespace
}  // namespace aw
