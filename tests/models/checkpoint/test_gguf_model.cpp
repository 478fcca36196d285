// tests/models/checkpoint/test_gguf_model.cpp — models/checkpoint/gguf_model.h on the GGUF files
// scripts/fixtures/make_gguf_model_fixtures.py wrote as llama.cpp's converter writes them
// (tests/fixtures/gguf_models/): the ids, logits and every layer's attention must be what transformers
// computes from the same file (to 1e-4), llama's q/k rows must be un-permuted as transformers un-permutes
// them, and every bad file — each made from a good one by changing one thing (tests/support/gguf_edit.h) —
// gets its exact one line.
#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/gguf_file.h"
#include "models/checkpoint/gguf_model.h"
#include "models/checkpoint/hub_cache.h"
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "tests/support/gguf_edit.h"
#include "tests/support/random_transformer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::GgufEdit;
using test::max_difference;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/gguf_models/";
constexpr double kTolerance = 1e-4;

std::vector<int64_t> as_ids(const torch::Tensor& tensor) {
  return {tensor.data_ptr<int64_t>(), tensor.data_ptr<int64_t>() + tensor.numel()};
}

void expect_close(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  EXPECT_TRUE(torch::allclose(ours, theirs, kTolerance, kTolerance)) << what << ": " << max_difference(ours, theirs);
}

template <typename Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

class GgufModels : public ::testing::TestWithParam<std::string> {};

TEST_P(GgufModels, IdsLogitsAndEveryAttentionAreTransformers) {
  const auto loaded = load_checkpoint(kFixtures + GetParam() + ".gguf");
  const auto reference = SafetensorsFile::open(kFixtures + GetParam() + ".expected.safetensors");
  const auto texts = nlohmann::json::parse(reference->metadata().at("texts"));
  torch::InferenceMode inference;
  for (const auto& [key, text] : texts.items()) {
    const auto ids = loaded.tokenizer->encode(text.get<std::string>()).ids;
    ASSERT_EQ(ids, as_ids(reference->tensor("ids_" + key))) << key;
    if (!reference->contains("logits_" + key)) continue;  // a text for the tokenizer only
    ForwardOptions options;
    options.capture = CaptureMode::Full;
    const auto result = loaded.model->forward(test::input_of(ids), options);
    expect_close(result.logits[0], reference->tensor("logits_" + key), key + " logits");
    expect_close(torch::stack(result.attention).select(1, 0), reference->tensor("attention_" + key), key + " attention");
  }
}

// llama.cpp interleaves each head's rotary halves in attn_q and attn_k (llama only): the loaded
// projections must be transformers' un-permuted ones exactly, and differ from the rows as stored.
TEST_P(GgufModels, QueryAndKeyRowsAreHuggingFacesOrder) {
  const auto loaded = load_checkpoint(kFixtures + GetParam() + ".gguf");
  const auto reference = SafetensorsFile::open(kFixtures + GetParam() + ".expected.safetensors");
  const auto file = GgufFile::open(kFixtures + GetParam() + ".gguf");
  auto parameters = loaded.model->module().named_parameters();
  for (const std::string projection : {"q", "k"})
    for (const std::string part : {"weight", "bias"}) {
      const auto name = projection + "_proj_" + part + "_0";
      if (!reference->contains(name)) continue;
      const auto ours = parameters["layers.0.attn." + projection + "." + part];
      EXPECT_TRUE(torch::equal(ours, reference->tensor(name))) << name << ": " << max_difference(ours, reference->tensor(name));
      auto stored = file->dequantised("blk.0.attn_" + projection + "." + part);
      const auto as_stored = torch::from_blob(stored.data(), ours.sizes(), torch::kFloat32);
      EXPECT_EQ(torch::equal(ours, as_stored), GetParam().rfind("llama", 0) != 0) << name << " (permuted for llama only)";
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GgufModels, ::testing::Values("llama3", "llama2", "qwen2", "qwen3", "gemma2", "gemma3"));

TEST(GgufModel, NamesItsQuantisationAndStoredTypes) {
  const auto loaded = load_checkpoint(kFixtures + "llama3.gguf");
  EXPECT_EQ(loaded.name, "llama3");
  EXPECT_EQ(loaded.quantisation, "Q8_0 (Q8_0 8 tensors, F16 6, F32 6, Q4_K 1, Q6_K 1)");
  EXPECT_EQ(loaded.stored_dtype, "F16+F32+Q4_K+Q6_K+Q8_0");
  EXPECT_EQ(loaded.mapped_bytes, 0);
  const auto folder = load_checkpoint(AW_SOURCE_DIR "/tests/fixtures/hf_models/llama");
  EXPECT_EQ(folder.quantisation, "");
}

TEST(GgufModel, ConfigComesFromTheMetadata) {
  const auto qwen3 = load_checkpoint(kFixtures + "qwen3.gguf").config;
  EXPECT_EQ(qwen3.family_name(), "qwen3");
  EXPECT_EQ(qwen3.d_head, 128);  // attention.key_length, not hidden_size / heads
  EXPECT_EQ(qwen3.decoder.kv_heads, 1);
  EXPECT_FALSE(qwen3.tie_embeddings);
  const auto llama2 = load_checkpoint(kFixtures + "llama2.gguf").config;
  EXPECT_TRUE(llama2.tie_embeddings);  // no output.weight
  EXPECT_TRUE(llama2.decoder.qkv_bias && llama2.decoder.mlp_bias);
  EXPECT_EQ(llama2.rotary.scaling, RopeScaling::Linear);
  EXPECT_DOUBLE_EQ(llama2.rotary.factor, 2.0);
  const auto llama3 = load_checkpoint(kFixtures + "llama3.gguf").config;
  EXPECT_EQ(llama3.rotary.scaling, RopeScaling::Llama3);  // from rope_freqs.weight
  EXPECT_DOUBLE_EQ(llama3.rotary.factor, 8.0);
}

// Llama 3.2's rope_freqs.weight (head width 64, base 500,000, factor 32, original context 8,192), as
// convert_hf_to_gguf.py computes it, reads back as Llama 3's own low and high frequency factors.
TEST(GgufModel, RopeFrequencyFactorsReadBackAsLlama3Scaling) {
  const double theta = 500000, factor = 32, low = 1, high = 4, original = 8192;
  std::vector<float> factors;
  for (int i = 0; i < 32; ++i) {
    const double wavelength = 2 * M_PI * std::pow(theta, 2.0 * i / 64);
    const double smooth = (original / wavelength - low) / (high - low);
    factors.push_back(static_cast<float>(wavelength < original / high  ? 1.0
                                         : wavelength > original / low ? factor
                                                                       : 1 / ((1 - smooth) / factor + smooth)));
  }
  auto edit = GgufEdit::read(kFixtures + "llama3.gguf");
  edit.set("llama.attention.key_length", GgufEdit::uint32(64));
  edit.set("llama.attention.value_length", GgufEdit::uint32(64));
  edit.set("llama.rope.dimension_count", GgufEdit::uint32(64));
  edit.set("llama.rope.freq_base", GgufEdit::float32(theta));
  auto& tensor = edit.tensor("rope_freqs.weight");
  tensor.ne = {32};
  tensor.bytes.assign(reinterpret_cast<const char*>(factors.data()), factors.size() * sizeof(float));
  test::TempDir dir;
  edit.write(dir.file("llama32.gguf"));
  const auto rope = gguf_config_json(*GgufFile::open(dir.file("llama32.gguf"))).at("rope_parameters");
  EXPECT_EQ(rope.at("rope_type"), "llama3");
  EXPECT_NEAR(rope.at("factor").get<double>(), factor, 1e-6);
  EXPECT_NEAR(rope.at("low_freq_factor").get<double>(), low, 1e-3);
  EXPECT_NEAR(rope.at("high_freq_factor").get<double>(), high, 1e-3);
  EXPECT_EQ(rope.at("original_max_position_embeddings"), 8192);
}

// Gemma 3's sliding layers: llama.cpp's period of 6 unless the file states a period or one flag per layer.
TEST(GgufModel, Gemma3SlidingLayersFollowThePattern) {
  const auto types = [](const GgufEdit& edit) {
    test::TempDir dir;
    edit.write(dir.file("gemma3.gguf"));
    return gguf_config_json(*GgufFile::open(dir.file("gemma3.gguf"))).at("layer_types").dump();
  };
  auto edit = GgufEdit::read(kFixtures + "gemma3.gguf");
  const std::string s = "\"sliding_attention\"", f = "\"full_attention\"";
  EXPECT_EQ(types(edit), "[" + s + "," + s + "," + s + "," + s + "," + s + "," + f + "]");
  edit.set("gemma3.attention.sliding_window_pattern", GgufEdit::uint32(2));
  EXPECT_EQ(types(edit), "[" + s + "," + f + "," + s + "," + f + "," + s + "," + f + "]");
  edit.set("gemma3.attention.sliding_window_pattern", GgufEdit::booleans({false, true, true, false, false, true}));
  EXPECT_EQ(types(edit), "[" + f + "," + s + "," + s + "," + f + "," + f + "," + s + "]");
}

TEST(GgufModel, ComputesInBf16) {
  const auto loaded = load_checkpoint(kFixtures + "qwen2.gguf", torch::kCPU, torch::kBFloat16);
  const auto reference = SafetensorsFile::open(kFixtures + "qwen2.expected.safetensors");
  EXPECT_EQ(loaded.model->module().parameters().front().scalar_type(), torch::kBFloat16);
  torch::InferenceMode inference;
  const auto logits = loaded.model->forward(test::input_of(as_ids(reference->tensor("ids_plain"))), {}).logits[0];
  // As test_transformer_hf_families.cpp's ReducedPrecision: BF16 logits within 4 % of the largest.
  const auto expected = reference->tensor("logits_plain");
  EXPECT_LT((logits.to(torch::kFloat32) - expected).abs().max().item<double>(), 0.04 * expected.abs().max().item<double>());
}

// prune --apply --save on a GGUF model writes a Hugging Face folder: config.json and tokenizer.json from the
// metadata, the weights under their Hugging Face names; it loads back as the same model.
TEST(GgufModel, SavesAsAHuggingFaceFolder) {
  const auto loaded = load_checkpoint(kFixtures + "llama2.gguf");
  test::TempDir dir;
  save_hugging_face_checkpoint(dir.path(), *loaded.model, kFixtures + "llama2.gguf", torch::kFloat32);
  const auto again = load_checkpoint(dir.path());
  const auto text = "The naïve café's cat";
  const auto ids = loaded.tokenizer->encode(text).ids;
  ASSERT_EQ(again.tokenizer->encode(text).ids, ids);
  torch::InferenceMode inference;
  const auto before = loaded.model->forward(test::input_of(ids), {}).logits;
  const auto after = again.model->forward(test::input_of(ids), {}).logits;
  EXPECT_TRUE(torch::equal(before, after)) << max_difference(before, after);
}

TEST(GgufModel, TensorNamesAreLlamaCpps) {
  EXPECT_EQ(gguf_tensor_name("tok_emb.weight"), "token_embd.weight");
  EXPECT_EQ(gguf_tensor_name("layers.12.attn.q.bias"), "blk.12.attn_q.bias");
  EXPECT_EQ(gguf_tensor_name("layers.0.mlp.fc1.weight"), "blk.0.ffn_up.weight");
  EXPECT_EQ(gguf_tensor_name("layers.3.ln_mlp_out.weight"), "blk.3.post_ffw_norm.weight");
  EXPECT_EQ(gguf_tensor_name("layers.3.mlp.router.weight"), "");
}

TEST(GgufModel, AMissingGgufPathIsNotAHubName) {
  EXPECT_EQ(error_of([] { resolve_model_argument("models/absent.gguf"); }), "models/absent.gguf: no such GGUF file");
}

// Bad files: llama3.gguf with one thing changed, and the line each gives.
class BadGguf : public ::testing::Test {
 protected:
  GgufEdit edit = GgufEdit::read(kFixtures + "llama3.gguf");
  test::TempDir dir;
  std::string path = dir.file("bad.gguf");

  std::string load_error() {
    edit.write(path);
    return error_of([&] { load_checkpoint(path); });
  }
  std::string bytes() const {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(BadGguf, TruncatedFile) {
  edit.write(path);
  const auto whole = bytes();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << whole.substr(0, whole.size() - 1000);
  EXPECT_EQ(error_of([&] { load_checkpoint(path); }),
            path + ": truncated: tensor 'output.weight' (Q8_0, 14960 bytes at data offset 86560) ends at byte 113072, the file has 112088");
}

// The last tensor's info says its bytes lie where another tensor's do, or past the end of the file.
TEST_F(BadGguf, TensorOffsetsThatLie) {
  edit.write(path);
  const auto good = bytes();
  const auto file = GgufFile::open(path);
  const auto& last = file->tensors().back();  // output.weight: its offset ends its info
  const auto at = good.rfind(last.name) + last.name.size() + 4 + 8 * last.ne.size() + 4;
  for (const uint64_t offset : {uint64_t{0}, last.offset + 4096}) {
    auto patched = good;
    std::memcpy(&patched[at], &offset, 8);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << patched;
    EXPECT_EQ(error_of([&] { load_checkpoint(path); }),
              offset == 0 ? path + ": tensors 'output.weight' (bytes 0–14960) and 'rope_freqs.weight' (bytes 0–16) of the data "
                                   "section overlap"
                          : path + ": truncated: tensor 'output.weight' (Q8_0, 14960 bytes at data offset 90656) ends at byte "
                                   "117168, the file has 113088");
  }
}

TEST_F(BadGguf, UnknownQuantisation) {
  auto& tensor = edit.tensor("blk.0.ffn_down.weight");  // [32, 256]: whole Q3_K blocks
  tensor.type = static_cast<uint32_t>(GgmlType::Q3_K);
  tensor.bytes.assign(32 * 110, '\0');
  EXPECT_EQ(load_error(), path + ": tensor 'blk.0.ffn_down.weight' is Q3_K; supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K");
}

TEST_F(BadGguf, UnknownArchitecture) {
  edit.set("general.architecture", GgufEdit::text("falcon"));
  EXPECT_EQ(load_error(), path + ": architecture 'falcon' is not supported (supported: llama, qwen2, qwen3, gemma2, gemma3)");
}

TEST_F(BadGguf, NoTokens) {
  edit.erase("tokenizer.ggml.tokens");
  EXPECT_EQ(load_error(), path + ": no tokenizer.ggml.tokens in its metadata (the vocabulary, which sizes the embedding)");
}

TEST_F(BadGguf, MergeOfAnUnknownToken) {
  auto merges = edit.find("tokenizer.ggml.merges")->strings;
  merges[3] = "Ġt zzz";
  edit.set("tokenizer.ggml.merges", GgufEdit::texts(merges));
  EXPECT_EQ(load_error(), path + ": tokenizer.ggml.merges[3] 'Ġt zzz' names 'zzz', which is not a token");
}

TEST_F(BadGguf, BosBeyondTheVocabulary) {
  edit.set("tokenizer.ggml.bos_token_id", GgufEdit::uint32(440));
  EXPECT_EQ(load_error(), path + ": tokenizer.ggml.bos_token_id 440 is not a token id (the vocabulary has 440 tokens)");
}

TEST_F(BadGguf, UnknownTokenizerModel) {
  edit.set("tokenizer.ggml.model", GgufEdit::text("bert"));
  EXPECT_EQ(load_error(), path + ": tokenizer.ggml.model 'bert' is not supported (supported: gpt2, llama)");
}

TEST_F(BadGguf, UnknownPreTokenizer) {
  edit.set("tokenizer.ggml.pre", GgufEdit::text("tekken"));
  EXPECT_EQ(load_error(), path + ": tokenizer.ggml.pre 'tekken' is not supported (supported: default, gpt-2, llama3, "
                                 "llama-v3, llama-bpe, smaug-bpe, dbrx, falcon3, pixtral, qwen2, deepseek-r1-qwen, megrez)");
}

TEST_F(BadGguf, TensorOfTheWrongShape) {
  edit.tensor("blk.1.attn_v.weight").ne = {64, 8};  // the same bytes (F16 16 × 32), another shape
  EXPECT_EQ(load_error(), path + ": tensor 'blk.1.attn_v.weight' has shape [8, 64] but the metadata needs [16, 32]");
}

TEST_F(BadGguf, MissingTensor) {
  edit.drop("blk.1.ffn_up.weight");
  EXPECT_EQ(load_error(), path + ": missing tensor 'blk.1.ffn_up.weight' (a llama model with this metadata needs it)");
}

TEST_F(BadGguf, UnexpectedTensor) {
  auto extra = edit.tensor("output_norm.weight");
  extra.name = "blk.0.ffn_gate_inp.weight";
  edit.tensors.push_back(extra);
  EXPECT_EQ(load_error(), path + ": unexpected tensor 'blk.0.ffn_gate_inp.weight' (not part of a llama model with this metadata)");
}

TEST_F(BadGguf, SizeOutOfRange) {
  edit.set("llama.block_count", GgufEdit::uint32(0));
  EXPECT_EQ(load_error(), path + ": metadata key 'llama.block_count' is 0, not a size from 1 to 16777216");
}

TEST_F(BadGguf, MetadataClaimingMoreWeightsThanTheTensorsHold) {
  edit.set("llama.block_count", GgufEdit::uint32(4000));
  EXPECT_EQ(load_error(), path + ": its metadata describes a model of at least 77838080 weights, but its tensors hold only "
                                 "83620 values; they do not belong together");
}

TEST_F(BadGguf, RopeFactorsOfAnotherWidth) {
  edit.tensor("rope_freqs.weight").ne = {2};
  edit.tensor("rope_freqs.weight").bytes.resize(8);
  EXPECT_EQ(load_error(), path + ": tensor 'rope_freqs.weight' has 2 values, but a head rotates 8 channels (4 frequencies)");
}

}  // namespace
}  // namespace aw
