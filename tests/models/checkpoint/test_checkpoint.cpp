// tests/models/checkpoint/test_checkpoint.cpp — checkpoint folders (models/checkpoint/checkpoint.h): native
// save → load round trips (F16 storage, every option, the recurrent classifiers), every bad folder's
// one-line error, Hugging Face GPT-2, BERT, Marian and decoder folders' errors, and weights loaded for a
// compute dtype (mapped in place when stored in it).
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "models/json_input.h"
#include "models/nn/config_enums.h"
#include "models/nn/model.h"
#include "models/nn/model_config.h"
#include "tests/support/hf_layout_folders.h"
#include "tests/support/hf_model_fixtures.h"
#include "tests/support/hf_translation_fixtures.h"
#include "tests/support/test_support.h"
#include "tests/support/tiny_lama.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using namespace test::hf_layout;
using test::error_of;
using test::hf_models::compute;
using test::hf_translation::fixture_dir;
using test::TempDir;
using test::tiny_config;
using test::two_documents;
using test::write_file;

std::string load_error(const std::string& dir) {
  try {
    load_checkpoint(dir);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

ModelInput fixed_input() {
  ModelInput input;
  input.input_ids = torch::tensor({{3, 5, 7, 2, 11, 13}}, torch::kLong);
  return input;
}

class NativeFolder : public ::testing::Test {
 protected:
  void SetUp() override { test::write_tiny_checkpoint(dir.path(), tiny_config("transformer_lm")); }
  // Rewrites model.safetensors with `edit` applied to the tensor list.
  void edit_weights(const std::function<void(std::vector<std::pair<std::string, torch::Tensor>>&)>& edit) {
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    {
      const auto file = SafetensorsFile::open(dir.file("model.safetensors"));
      for (const auto& name : file->names()) tensors.emplace_back(name, file->tensor(name).clone());
    }
    edit(tensors);
    write_safetensors(dir.file("model.safetensors"), tensors);
  }
  TempDir dir;
};

TEST(NativeCheckpoint, RoundTripGivesTheSameLogitsAndAttention) {
  for (const std::string family : {"transformer_lm", "bet_sf", "bet_sg"}) {
    TempDir dir;
    const auto config = tiny_config(family);
    torch::manual_seed(21);
    auto original = create_model(config);
    original->module().eval();
    save_native_checkpoint(dir.path(), *original, test::tiny_vocabulary(config.vocab_size));
    const auto loaded = load_checkpoint(dir.path());

    EXPECT_EQ(loaded.config.family_name(), family);
    EXPECT_EQ(loaded.stored_dtype, "F32");
    EXPECT_EQ(loaded.parameter_count, count_parameters(*original));
    EXPECT_EQ(loaded.tokenizer->kind(), "word");
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto expected = original->forward(fixed_input(), options);
    const auto actual = loaded.model->forward(fixed_input(), options);
    EXPECT_TRUE(torch::equal(expected.logits, actual.logits)) << family;
    EXPECT_TRUE(torch::equal(expected.attention[1], actual.attention[1])) << family;
  }
}

TEST(NativeCheckpoint, Float16StorageLoadsAsFloat32) {
  TempDir dir;
  const auto config = tiny_config("bet_sf");
  torch::manual_seed(22);
  auto original = create_model(config);
  original->module().eval();
  save_native_checkpoint(dir.path(), *original, test::tiny_vocabulary(20), torch::kFloat16);
  const auto loaded = load_checkpoint(dir.path());
  EXPECT_EQ(loaded.stored_dtype, "F16");
  for (const auto& item : loaded.model->module().named_parameters()) {
    EXPECT_EQ(item.value().scalar_type(), torch::kFloat32);
    const auto rounded = original->module().named_parameters()[item.key()].to(torch::kFloat16).to(torch::kFloat32);
    EXPECT_TRUE(torch::equal(item.value(), rounded)) << item.key();
  }
  EXPECT_LT(fs::file_size(dir.file("model.safetensors")), 20u * 1024u);
}

TEST(NativeCheckpoint, ConfigKeepsEveryOption) {
  TempDir dir;
  auto json = nlohmann::json{{"model_type", "bet_sf"}, {"vocab_size", 20}, {"n_layers", 2}, {"n_heads", 3},
                             {"d_model", 12}, {"d_ff", 20}, {"max_positions", 16}, {"norm", "post"},
                             {"positions", "sinusoidal"}, {"tie_embeddings", false}, {"activation", "relu"},
                             {"dropout", 0.25}, {"diag_free_mask", false}, {"heads_per_layer", {3, 1}}};
  const auto config = parse_model_config(json, "config");
  save_native_checkpoint(dir.path(), *create_model(config), test::tiny_vocabulary(20));
  const auto loaded = load_checkpoint(dir.path());
  EXPECT_EQ(native_config_json(loaded.config), native_config_json(config));
  EXPECT_EQ(loaded.config.heads_per_block, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(loaded.config.total_heads(), 4);
}

TEST(CheckpointErrors, MissingPath) {
  EXPECT_EQ(load_error("/nonexistent/model"), "/nonexistent/model: no such file or directory");
}

TEST(CheckpointErrors, FolderWithoutConfig) {
  TempDir dir;
  EXPECT_EQ(load_error(dir.path()), dir.path() + ": no config.json in this folder");
}

TEST(CheckpointErrors, PathIsAFile) {
  TempDir dir;
  write_file(dir.file("model.bin"), "x");
  EXPECT_EQ(load_error(dir.file("model.bin")),
            dir.file("model.bin") + ": not a checkpoint folder (expected a directory with config.json)");
}

TEST(CheckpointErrors, InvalidConfigJson) {
  TempDir dir;
  write_file(dir.file("config.json"), "{\"model_type\":\n ");
  EXPECT_EQ(load_error(dir.path()),
            dir.file("config.json") + ": is not valid JSON (parse error at line 2, column 2, byte 16 of 16)");
}

// Hostile configs (issue 18's fuzzing findings): each refused with one line naming the file, before
// anything is allocated from them and without the stack overflow or library text they used to give.
TEST(CheckpointErrors, HostileConfigJson) {
  TempDir dir;
  const auto config = dir.file("config.json");
  auto error_for = [&](const std::string& text) {
    write_file(config, text);
    return load_error(dir.path());
  };
  const std::string deep = "{\"model_type\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  EXPECT_EQ(error_for(deep), config + ": is not valid JSON (nested deeper than 64 levels)");
  EXPECT_EQ(error_for("{\"model_type\": \"transformer_lm\", \"d_model\": 1e400}"),
            config + ": is not valid JSON (a number is outside the range of a 64-bit float)");
  EXPECT_EQ(error_for(R"({"model_type": "transformer_lm", "vocab_size": 8, "n_layers": 600000000, "n_heads": 1,
                          "d_model": 2, "max_positions": 4})"),
            config + ": key 'n_layers' is 600000000, more than this tool accepts (4096)");
  EXPECT_EQ(error_for(R"({"model_type": "transformer_lm", "vocab_size": 8, "n_layers": 1, "n_heads": 1,
                          "d_model": 2305843009213693952, "max_positions": 4})"),
            config + ": key 'd_model' is 2305843009213693952, more than this tool accepts (16777216)");
  EXPECT_EQ(error_for(R"({"model_type": "bert", "architectures": ["BertForSequenceClassification"],
                          "vocab_size": 8, "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 1,
                          "intermediate_size": 8, "max_position_embeddings": 8, "num_labels": 1000000000000})"),
            config + ": key 'num_labels' is 1000000000000, more than this tool accepts (100000)");
  // A long value in a message is cut short.
  std::string long_list = "[1";
  for (int i = 0; i < 10000; ++i) long_list += ",1";
  EXPECT_EQ(error_for("{\"model_type\": \"transformer_lm\", \"vocab_size\": " + long_list + "]}"),
            config + ": key 'vocab_size' must be a positive integer, got " + long_list.substr(0, 60) + "...");
}

TEST(CheckpointErrors, UnknownModelType) {
  TempDir dir;
  write_file(dir.file("config.json"), R"({"model_type": "gemma"})");
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") +
                                        ": unknown model_type 'gemma' (known: transformer_lm, bet_sf, bet_sg, encoder_classifier, lama, "
                                        "bigru_mean, gpt2, bert, transformer_mt, marian, bart, bigru_max, llama, mistral, qwen2, gpt_neox, qwen3, "
                                        "gemma2, gemma3_text, phi3, olmo2, mixtral, qwen3_moe, olmoe, gpt_oss)");
}

TEST(CheckpointErrors, MissingAndMistypedConfigKeys) {
  TempDir dir;
  write_file(dir.file("config.json"), R"({"model_type": "transformer_lm", "vocab_size": 20})");
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") + ": missing key 'n_layers'");
  write_file(dir.file("config.json"),
             R"({"model_type": "transformer_lm", "vocab_size": 20, "n_layers": "two", "n_heads": 3})");
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") + ": key 'n_layers' must be a positive integer, got \"two\"");
  write_file(dir.file("config.json"), R"({"model_type": "transformer_lm", "vocab_size": 20, "n_layers": 2,
             "n_heads": 5, "d_model": 12, "max_positions": 16})");
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") + ": d_model 12 is not divisible by 5 heads");
  write_file(dir.file("config.json"), R"({"model_type": "transformer_lm", "vocab_size": 20, "n_layers": 2,
             "n_heads": 3, "d_model": 12, "max_positions": 16, "norm": "middle"})");
  EXPECT_EQ(load_error(dir.path()),
            dir.file("config.json") + ": key 'norm' must be one of pre, post, got \"middle\"");
}

TEST_F(NativeFolder, LoadsAsWritten) { EXPECT_EQ(load_error(dir.path()), "no error"); }

TEST_F(NativeFolder, MissingWeightsFile) {
  fs::remove(dir.file("model.safetensors"));
  EXPECT_EQ(load_error(dir.path()), dir.path() + ": no model.safetensors or model.safetensors.index.json in this folder");
}

TEST_F(NativeFolder, MissingVocabulary) {
  fs::remove(dir.file("vocab.txt"));
  EXPECT_EQ(load_error(dir.path()), dir.path() + ": no vocab.txt in this folder");
}

TEST_F(NativeFolder, TensorMissing) {
  edit_weights([](auto& tensors) {
    tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                 [](const auto& item) { return item.first == "layers.1.mlp.fc2.bias"; }),
                  tensors.end());
  });
  EXPECT_EQ(load_error(dir.path()), dir.file("model.safetensors") +
                                        ": missing tensor 'layers.1.mlp.fc2.bias' (a transformer_lm model with this "
                                        "config needs it)");
}

// Sizes a config.json claims are checked against the stored tensors before any model is allocated:
// d_ff 10,000,000 would have allocated 960 MB (a larger one, terabytes).
TEST_F(NativeFolder, ConfigClaimingMoreWeightsThanTheFileHolds) {
  auto json = read_untrusted_json(dir.file("config.json"));
  json["d_ff"] = 10000000;
  write_file(dir.file("config.json"), json.dump());
  // 20·12 token + 16·12 position embeddings, 2 layers × (4·12·12 attention + 2·12·10⁷ feed-forward)
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") +
                                        ": describes a model of at least 480001584 weights, but model.safetensors "
                                        "holds only 3024 values; they do not belong together");
  json["d_ff"] = 24;
  json["positions"] = "sinusoidal";
  json["max_positions"] = 16777216;
  write_file(dir.file("config.json"), json.dump());
  EXPECT_EQ(load_error(dir.path()), dir.file("config.json") +
                                        ": max_positions 16777216 × d_model 12 is too large for a sinusoid table "
                                        "(at most 2^27 values)");
}

TEST_F(NativeFolder, TensorOfTheWrongShape) {
  edit_weights([](auto& tensors) {
    for (auto& item : tensors)
      if (item.first == "layers.0.attn.q.weight") item.second = torch::zeros({12, 10});
  });
  EXPECT_EQ(load_error(dir.path()),
            dir.file("model.safetensors") + ": tensor 'layers.0.attn.q.weight' has shape [12, 10] but the config needs [12, 12]");
}

TEST_F(NativeFolder, IntegerWeights) {
  edit_weights([](auto& tensors) {
    for (auto& item : tensors)
      if (item.first == "ln_f.bias") item.second = torch::zeros({12}, torch::kLong);
  });
  EXPECT_EQ(load_error(dir.path()),
            dir.file("model.safetensors") + ": tensor 'ln_f.bias' has dtype I64; weights must be F32, F16, BF16 or F64");
}

TEST_F(NativeFolder, UnexpectedTensor) {
  edit_weights([](auto& tensors) { tensors.emplace_back("layers.2.attn.q.weight", torch::zeros({12, 12})); });
  EXPECT_EQ(load_error(dir.path()), dir.file("model.safetensors") +
                                        ": unexpected tensor 'layers.2.attn.q.weight' (not part of a transformer_lm "
                                        "model with this config)");
}

TEST_F(NativeFolder, VocabularyThatDoesNotMatchTheEmbedding) {
  write_file(dir.file("vocab.txt"), "<unk>\n<eos>\nthe\n");
  EXPECT_EQ(load_error(dir.path()), dir.file("vocab.txt") + ": has 3 tokens but the model's embedding has 20 rows");
}

TEST_F(NativeFolder, TruncatedWeightsFile) {
  const auto path = dir.file("model.safetensors");
  fs::resize_file(path, fs::file_size(path) - 100);
  const auto message = load_error(dir.path());
  EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
  // The tensors stored last (the writer orders them by name) end past the shortened data section.
  EXPECT_NE(message.find("tensor 'layers.1.mlp.fc2."), std::string::npos) << message;
  EXPECT_NE(message.find("past the end of the"), std::string::npos) << message;
}

TEST_F(NativeFolder, DeviceCanBeChosen) {
  const auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  EXPECT_TRUE(loaded.model->module().parameters().front().device().is_cpu());
  EXPECT_FALSE(loaded.model->module().is_training());
}

// Native files are read by the module's named_parameters(): in every native family each parameter
// must be in the file under its own name, and a tensor the module does not have is refused.
TEST(NativeCheckpoint, EveryFamilyNeedsEachNamedParameterAndNothingElse) {
  std::vector<ModelConfig> configs = {tiny_config("transformer_lm"), tiny_config("bet_sf"), tiny_config("bet_sg"),
                                      test::tiny_lama_config("lama", "mean"), test::tiny_lama_config("lama", "learned"),
                                      test::tiny_lama_config("bigru_mean")};
  configs.push_back(parse_model_config(
      {{"model_type", "encoder_classifier"}, {"vocab_size", 20}, {"n_layers", 1}, {"n_heads", 2}, {"d_model", 8},
       {"max_positions", 16}, {"dropout", 0.0}, {"labels", {"neg", "pos"}}},
      "encoder config"));
  for (const auto& config : configs) {
    SCOPED_TRACE(config.family_name());
    TempDir dir;
    test::write_tiny_checkpoint(dir.path(), config);
    const auto weights = dir.file("model.safetensors");
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    {
      const auto file = SafetensorsFile::open(weights);
      for (const auto& name : file->names()) tensors.emplace_back(name, file->tensor(name).clone());
    }
    const auto loaded = load_checkpoint(dir.path());
    std::set<std::string> parameter_names, file_names;
    for (const auto& item : loaded.model->module().named_parameters()) parameter_names.insert(item.key());
    for (const auto& item : tensors) file_names.insert(item.first);
    EXPECT_EQ(parameter_names, file_names);

    auto with_stranger = tensors;
    with_stranger.emplace_back("stranger.weight", torch::zeros({2, 2}));
    write_safetensors(weights, with_stranger);
    EXPECT_EQ(load_error(dir.path()), weights + ": unexpected tensor 'stranger.weight' (not part of a " +
                                          config.family_name() + " model with this config)");

    auto without_last = tensors;
    const auto last = loaded.model->module().named_parameters().keys().back();
    without_last.erase(std::remove_if(without_last.begin(), without_last.end(),
                                      [&](const auto& item) { return item.first == last; }),
                       without_last.end());
    write_safetensors(weights, without_last);
    EXPECT_EQ(load_error(dir.path()), weights + ": missing tensor '" + last + "' (a " + config.family_name() +
                                          " model with this config needs it)");
  }
}

TEST(Lama, SaveLoadRoundTripKeepsConfigAndOutputs) {
  const std::vector<ModelConfig> configs = {test::tiny_lama_config("lama", "mean"), test::tiny_lama_config("lama", "learned"),
                                            test::tiny_lama_config("lama", "mean", 8), test::tiny_lama_config("bigru_mean"),
                                            test::tiny_lama_config("bigru_max")};
  for (auto config : configs) {
    SCOPED_TRACE(config.family_name() + " " + to_string(config.recurrent.context) +
                 " E=" + std::to_string(config.recurrent.embedding_dim));
    config.recurrent.regularizer = config.has_lama_attention() ? Regularizer::Emb : Regularizer::None;
    config.normalize_words = true;
    TempDir dir;
    torch::manual_seed(3);
    auto original = create_model(config);
    original->module().eval();
    save_native_checkpoint(dir.path(), *original, test::tiny_vocabulary(20));
    const auto loaded = load_checkpoint(dir.path());
    EXPECT_EQ(loaded.config.family, config.family);
    EXPECT_EQ(loaded.config.recurrent.context, config.recurrent.context);
    EXPECT_EQ(loaded.config.recurrent.regularizer, config.recurrent.regularizer);
    EXPECT_EQ(loaded.config.labels, config.labels);
    EXPECT_EQ(loaded.config.n_heads, config.n_heads);
    EXPECT_TRUE(loaded.config.normalize_words);
    EXPECT_EQ(loaded.parameter_count, count_parameters(*original));
    torch::NoGradGuard no_grad;
    const auto input = two_documents();
    EXPECT_TRUE(torch::equal(loaded.model->forward(input).logits, original->forward(input).logits));
  }
}

TEST(HfLoaderErrors, Gpt2MissingTensorIsNamed) {
  TempDir dir;
  auto weights = random_gpt2_weights(301);
  weights.erase(gpt2_layer(1, "mlp.c_fc.bias"));
  write_gpt2_folder(dir, weights, "");
  EXPECT_EQ(load_error(dir.path()), dir.file("model.safetensors") +
                                        ": missing tensor 'h.1.mlp.c_fc.bias' (a gpt2 model with this config needs it)");
}

TEST(HfLoaderErrors, Gpt2WrongShapeNamesFoundAndNeededShapes) {
  TempDir dir;
  auto weights = random_gpt2_weights(302);
  weights[gpt2_layer(0, "attn.c_attn.weight")] = torch::randn({kGpt2Width, 2 * kGpt2Width});
  write_gpt2_folder(dir, weights, "");
  EXPECT_EQ(load_error(dir.path()),
            dir.file("model.safetensors") +
                ": tensor 'h.0.attn.c_attn.weight' has shape [8, 16] but the config needs [8, 24]");
}

TEST(HfLoaderErrors, BertClassifierWithoutHeadWeightsIsNamed) {
  TempDir dir;
  auto weights = random_bert_weights(303);
  weights.erase("classifier.weight");
  write_bert_folder(dir, weights, {});
  EXPECT_EQ(load_error(dir.path()), dir.file("model.safetensors") +
                                        ": missing tensor 'classifier.weight' (a bert model with this config needs it)");
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

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/hf_models/";

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

}  // namespace
}  // namespace aw
