// tests/test_hf_reference.cpp — Hugging Face GPT-2 and BERT folders, written here with tiny random
// weights under the Hugging Face names and layouts, load through aw::load_checkpoint, and their
// forward passes match an independent float64 implementation of each architecture written in this
// file from the raw tensors (it never calls the aw:: model code). Also the loader's one-line errors
// on those layouts.
// Dimension letters: B batch, n sequence length, H heads, dh head width, d model width, V vocabulary,
// P positions, C classes.
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/checkpoint/safetensors.h"
#include "models/text/tokenizer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using TensorMap = std::map<std::string, torch::Tensor>;
using torch::indexing::None;
using torch::indexing::Slice;

constexpr double kWeightScale = 0.3;       // large enough that attention is far from uniform
constexpr double kFloat32Tolerance = 1e-5;
constexpr double kFloat16Tolerance = 1e-4;

// ---------------------------------------------------------------------------------------------
// The float64 reference: textbook definitions on double tensors.

// LayerNorm over the last dimension with the biased variance, as nn.LayerNorm.
torch::Tensor layer_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                         double eps) {
  auto centered = x - x.mean(-1, /*keepdim=*/true);
  auto variance = (centered * centered).mean(-1, /*keepdim=*/true);
  return centered / torch::sqrt(variance + eps) * weight + bias;
}

// Softmax over the last dimension; −∞ entries come out exactly 0.
torch::Tensor softmax_rows(const torch::Tensor& scores) {
  auto largest = std::get<0>(scores.max(-1, /*keepdim=*/true));
  auto exponentials = torch::exp(scores - largest);
  return exponentials / exponentials.sum(-1, /*keepdim=*/true);
}

// GPT-2's "gelu_new": 0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³))).
torch::Tensor gelu_tanh(const torch::Tensor& x) {
  const double root = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + torch::tanh(root * (x + 0.044715 * x * x * x)));
}

// BERT's "gelu": 0.5 x (1 + erf(x / sqrt(2))).
torch::Tensor gelu_erf(const torch::Tensor& x) { return 0.5 * x * (1.0 + torch::erf(x / std::sqrt(2.0))); }

struct AttentionOutput {
  torch::Tensor probabilities;  // (B, H, n, n)
  torch::Tensor mixed;          // (B, n, H·dh), heads merged back
};

// Scaled dot-product attention over `heads` heads; `blocked` (bool, broadcast to (B, H, n, n)) marks
// the scores set to −∞.
AttentionOutput attend(const torch::Tensor& query, const torch::Tensor& key, const torch::Tensor& value,
                       const torch::Tensor& blocked, int64_t heads) {
  const int64_t batch = query.size(0), length = query.size(1), width = query.size(2);
  const int64_t head_width = width / heads;
  auto split = [&](const torch::Tensor& t) {  // (B, n, H·dh) -> (B, H, n, dh)
    return t.reshape({batch, length, heads, head_width}).permute({0, 2, 1, 3});
  };
  auto scores = torch::matmul(split(query), split(key).transpose(-2, -1)) /
                std::sqrt(static_cast<double>(head_width));                              // (B, H, n, n)
  scores = scores.masked_fill(blocked, -INFINITY);
  AttentionOutput output;
  output.probabilities = softmax_rows(scores);
  output.mixed = torch::matmul(output.probabilities, split(value))                       // (B, H, n, dh)
                     .permute({0, 2, 1, 3})
                     .reshape({batch, length, width});                                   // (B, n, H·dh)
  return output;
}

struct Reference {
  torch::Tensor logits;                  // (B, n, V) or (B, C); undefined without a head
  torch::Tensor hidden;                  // (B, n, d) output of the last layer
  std::vector<torch::Tensor> attention;  // per layer (B, H, n, n)
};

// Reads a raw tensor as float64.
class Weights {
 public:
  explicit Weights(const TensorMap& tensors) : tensors_(tensors) {}
  torch::Tensor operator()(const std::string& name) const { return tensors_.at(name).to(torch::kFloat64); }
  // nn.Linear layout: weight (out, in), y = x Wᵀ + b.
  torch::Tensor linear(const torch::Tensor& x, const std::string& name) const {
    return torch::matmul(x, (*this)(name + ".weight").t()) + (*this)(name + ".bias");
  }
  // GPT-2 Conv1D layout: weight (in, out), y = x W + b.
  torch::Tensor conv1d(const torch::Tensor& x, const std::string& name) const {
    return torch::matmul(x, (*this)(name + ".weight")) + (*this)(name + ".bias");
  }
  torch::Tensor norm(const torch::Tensor& x, const std::string& name, double eps) const {
    return layer_norm(x, (*this)(name + ".weight"), (*this)(name + ".bias"), eps);
  }

 private:
  const TensorMap& tensors_;
};

// ---------------------------------------------------------------------------------------------
// GPT-2: 2 layers × 2 heads, d 8, 16 positions, 260 tokens (256 byte symbols + 4 merges).

constexpr int64_t kGpt2Layers = 2;
constexpr int64_t kGpt2Heads = 2;
constexpr int64_t kGpt2Width = 8;
constexpr int64_t kGpt2Positions = 16;
constexpr int64_t kGpt2Vocab = 260;
constexpr double kGpt2Eps = 1e-5;

std::string gpt2_layer(int64_t layer, const std::string& rest) { return "h." + std::to_string(layer) + "." + rest; }

TensorMap random_gpt2_weights(uint64_t seed) {
  torch::manual_seed(seed);
  const int64_t d = kGpt2Width;
  auto random = [](std::vector<int64_t> shape) { return torch::randn(shape) * kWeightScale; };
  auto norm_weight = [&] { return 1.0 + random({d}); };
  TensorMap weights;
  weights["wte.weight"] = random({kGpt2Vocab, d});
  weights["wpe.weight"] = random({kGpt2Positions, d});
  for (int64_t layer = 0; layer < kGpt2Layers; ++layer) {
    weights[gpt2_layer(layer, "ln_1.weight")] = norm_weight();
    weights[gpt2_layer(layer, "ln_1.bias")] = random({d});
    weights[gpt2_layer(layer, "attn.c_attn.weight")] = random({d, 3 * d});
    weights[gpt2_layer(layer, "attn.c_attn.bias")] = random({3 * d});
    weights[gpt2_layer(layer, "attn.c_proj.weight")] = random({d, d});
    weights[gpt2_layer(layer, "attn.c_proj.bias")] = random({d});
    weights[gpt2_layer(layer, "ln_2.weight")] = norm_weight();
    weights[gpt2_layer(layer, "ln_2.bias")] = random({d});
    weights[gpt2_layer(layer, "mlp.c_fc.weight")] = random({d, 4 * d});
    weights[gpt2_layer(layer, "mlp.c_fc.bias")] = random({4 * d});
    weights[gpt2_layer(layer, "mlp.c_proj.weight")] = random({4 * d, d});
    weights[gpt2_layer(layer, "mlp.c_proj.bias")] = random({d});
  }
  weights["ln_f.weight"] = norm_weight();
  weights["ln_f.bias"] = random({d});
  return weights;
}

// GPT-2 from its definition: pre-LN blocks, causal attention, tied LM head.
Reference gpt2_reference(const TensorMap& tensors, const torch::Tensor& ids) {
  const Weights w(tensors);
  const int64_t batch = ids.size(0), length = ids.size(1), d = kGpt2Width;
  auto x = w("wte.weight").index_select(0, ids.flatten()).view({batch, length, d}) +
           w("wpe.weight").narrow(0, 0, length);                                          // (B, n, d)
  const auto causal_blocked = torch::ones({length, length}, torch::kBool).triu(1);       // (n, n) key after query
  Reference reference;
  for (int64_t layer = 0; layer < kGpt2Layers; ++layer) {
    auto normed = w.norm(x, gpt2_layer(layer, "ln_1"), kGpt2Eps);
    auto qkv = w.conv1d(normed, gpt2_layer(layer, "attn.c_attn")).split(d, -1);           // 3 × (B, n, d)
    auto attention = attend(qkv[0], qkv[1], qkv[2], causal_blocked, kGpt2Heads);
    x = x + w.conv1d(attention.mixed, gpt2_layer(layer, "attn.c_proj"));
    auto inner = gelu_tanh(w.conv1d(w.norm(x, gpt2_layer(layer, "ln_2"), kGpt2Eps), gpt2_layer(layer, "mlp.c_fc")));
    x = x + w.conv1d(inner, gpt2_layer(layer, "mlp.c_proj"));                             // (B, n, d)
    reference.attention.push_back(attention.probabilities);
  }
  reference.hidden = x;
  reference.logits = torch::matmul(w.norm(x, "ln_f", kGpt2Eps), w("wte.weight").t());    // (B, n, V)
  return reference;
}

using test::utf8;

// GPT-2's bytes_to_unicode: printable bytes keep their code point, the other 68 take 256, 257, …
// in increasing byte order. Returned in vocabulary order (increasing code point), as GPT-2's ids.
std::vector<std::string> byte_symbols_in_vocab_order() {
  std::vector<std::string> printable, remapped;
  uint32_t next = 256;
  for (uint32_t byte = 0; byte < 256; ++byte) {
    const bool keeps = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
    if (keeps) printable.push_back(utf8(byte));
    else remapped.push_back(utf8(next++));
  }
  printable.insert(printable.end(), remapped.begin(), remapped.end());
  return printable;
}

void write_gpt2_tokenizer(const TempDir& dir) {
  const std::string space = utf8(256 + 32);  // "Ġ", the byte-level symbol of ' '
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"}, {space, "t"}, {space + "t", "he"}, {"l", "l"}};
  nlohmann::json vocab = nlohmann::json::object();
  int64_t id = 0;
  for (const auto& symbol : byte_symbols_in_vocab_order()) vocab[symbol] = id++;
  std::string merges_text = "#version: 0.2\n";
  for (const auto& [left, right] : merges) {
    vocab[left + right] = id++;
    merges_text += left + " " + right + "\n";
  }
  ASSERT_EQ(id, kGpt2Vocab);
  test::write_file(dir.file("vocab.json"), vocab.dump());
  test::write_file(dir.file("merges.txt"), merges_text);
}

// A Hugging Face GPT-2 folder: config.json, vocab.json, merges.txt and model.safetensors holding
// `weights` (every name after `prefix`, in `storage`) plus the causal-mask buffers the loader ignores.
void write_gpt2_folder(const TempDir& dir, const TensorMap& weights, const std::string& prefix,
                       torch::ScalarType storage = torch::kFloat32) {
  const nlohmann::json config = {
      {"model_type", "gpt2"},         {"architectures", {"GPT2LMHeadModel"}},
      {"n_layer", kGpt2Layers},       {"n_head", kGpt2Heads},
      {"n_embd", kGpt2Width},         {"n_positions", kGpt2Positions},
      {"n_ctx", kGpt2Positions},      {"vocab_size", kGpt2Vocab},
      {"activation_function", "gelu_new"}, {"layer_norm_epsilon", kGpt2Eps},
      {"resid_pdrop", 0.1},           {"embd_pdrop", 0.1},
      {"attn_pdrop", 0.1},            {"bos_token_id", 0},
  };
  test::write_file(dir.file("config.json"), config.dump(2));
  write_gpt2_tokenizer(dir);

  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& [name, tensor] : weights) tensors.emplace_back(prefix + name, tensor.to(storage));
  const auto causal = torch::ones({kGpt2Positions, kGpt2Positions}).tril().view({1, 1, kGpt2Positions, kGpt2Positions});
  for (int64_t layer = 0; layer < kGpt2Layers; ++layer) {
    tensors.emplace_back(prefix + gpt2_layer(layer, "attn.bias"), causal.to(storage));
    tensors.emplace_back(prefix + gpt2_layer(layer, "attn.masked_bias"), torch::tensor(-1e4).to(storage));
  }
  write_safetensors(dir.file("model.safetensors"), tensors, {{"format", "pt"}});
}

ModelInput gpt2_input() {
  ModelInput input;
  input.input_ids = torch::tensor({{3, 17, 256, 42, 259, 0, 101}, {200, 5, 5, 77, 258, 13, 187}}, torch::kLong);
  return input;
}

ForwardResult run_full(const LoadedModel& loaded, const ModelInput& input) {
  torch::InferenceMode inference;
  ForwardOptions options;
  options.capture = CaptureMode::Full;
  return loaded.model->forward(input, options);
}

// actual (float32 from the model) against expected (float64 reference), within `tolerance`.
void expect_close(const torch::Tensor& actual, const torch::Tensor& expected, double tolerance,
                  const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what << " is undefined";
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec()) << what;
  const auto actual64 = actual.to(torch::kFloat64);
  EXPECT_TRUE(torch::allclose(actual64, expected, /*rtol=*/0.0, /*atol=*/tolerance))
      << what << ": " << test::max_difference(actual64, expected) << " (tolerance " << tolerance << ")";
}

void expect_gpt2_matches_reference(const TempDir& dir, const TensorMap& reference_weights, double tolerance) {
  const auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  EXPECT_EQ(loaded.config.family, ModelFamily::Gpt2);
  EXPECT_EQ(loaded.tokenizer->kind(), "gpt2_bpe");
  EXPECT_EQ(loaded.tokenizer->vocab_size(), kGpt2Vocab);

  const auto input = gpt2_input();
  const auto result = run_full(loaded, input);
  const auto reference = gpt2_reference(reference_weights, input.input_ids);
  expect_close(result.logits, reference.logits, tolerance, "logits");
  expect_close(result.hidden, reference.hidden, tolerance, "hidden");
  ASSERT_EQ(result.attention.size(), static_cast<size_t>(kGpt2Layers));
  for (int64_t layer = 0; layer < kGpt2Layers; ++layer)
    expect_close(result.attention[layer], reference.attention[layer], tolerance,
                 "attention of layer " + std::to_string(layer));
}

TEST(Gpt2Reference, BareNamesMatchFloat64Reference) {
  TempDir dir;
  const auto weights = random_gpt2_weights(101);
  write_gpt2_folder(dir, weights, "");
  expect_gpt2_matches_reference(dir, weights, kFloat32Tolerance);
  EXPECT_EQ(load_checkpoint(dir.path()).stored_dtype, "F32");
}

// A folder whose only tokenizer file is a tokenizer.json (ByteLevel with GPT-2's regex, the same
// vocabulary and merges) loads it and encodes as GPT-2's own files do.
TEST(Gpt2Reference, AFolderWithOnlyTokenizerJsonReadsIt) {
  TempDir dir;
  write_gpt2_folder(dir, random_gpt2_weights(104), "");
  const auto gpt2 = load_gpt2_tokenizer(dir.file("vocab.json"), dir.file("merges.txt"));
  nlohmann::json merges = nlohmann::json::array();
  std::ifstream merges_file(dir.file("merges.txt"));
  for (std::string line; std::getline(merges_file, line);)
    if (!line.empty() && line[0] != '#') merges.push_back(line);
  std::ifstream vocab_file(dir.file("vocab.json"));
  const nlohmann::json tokenizer_json = {
      {"version", "1.0"},
      {"added_tokens", nlohmann::json::array()},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
      {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false},
                 {"byte_fallback", false}, {"vocab", nlohmann::json::parse(vocab_file)}, {"merges", merges}}}};
  test::write_file(dir.file("tokenizer.json"), tokenizer_json.dump());
  std::filesystem::remove(dir.file("vocab.json"));
  std::filesystem::remove(dir.file("merges.txt"));
  const auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  EXPECT_EQ(loaded.tokenizer->kind(), "hf_bpe");
  EXPECT_EQ(loaded.tokenizer->vocab_size(), kGpt2Vocab);
  for (const std::string text : {"the cat sat on the mat", "  spaced   out\n", "naïve 日本 🍕 don't"}) {
    EXPECT_EQ(loaded.tokenizer->encode(text).ids, gpt2->encode(text).ids) << text;
    EXPECT_EQ(loaded.tokenizer->encode(text).tokens, gpt2->encode(text).tokens) << text;
  }
}

TEST(Gpt2Reference, TransformerPrefixedNamesMatchFloat64Reference) {
  TempDir dir;
  const auto weights = random_gpt2_weights(102);
  write_gpt2_folder(dir, weights, "transformer.");
  expect_gpt2_matches_reference(dir, weights, kFloat32Tolerance);
}

TEST(Gpt2Reference, Float16StorageMatchesReferenceOfRoundedWeights) {
  TempDir dir;
  const auto weights = random_gpt2_weights(103);
  write_gpt2_folder(dir, weights, "transformer.", torch::kFloat16);
  TensorMap rounded;
  for (const auto& [name, tensor] : weights) rounded[name] = tensor.to(torch::kFloat16);
  expect_gpt2_matches_reference(dir, rounded, kFloat16Tolerance);
  EXPECT_EQ(load_checkpoint(dir.path()).stored_dtype, "F16");
}

TEST(Gpt2Reference, CausalAttentionRowsSumToOneWithZeroUpperTriangle) {
  TempDir dir;
  const auto weights = random_gpt2_weights(104);
  write_gpt2_folder(dir, weights, "");
  const auto result = run_full(load_checkpoint(dir.path()), gpt2_input());
  for (const auto& probabilities : result.attention) {
    const auto sums = probabilities.to(torch::kFloat64).sum(-1);
    EXPECT_TRUE(torch::allclose(sums, torch::ones_like(sums), 0.0, 1e-6)) << test::max_difference(sums, torch::ones_like(sums));
    EXPECT_EQ(probabilities.triu(1).abs().max().item<double>(), 0.0);
  }
}

// ---------------------------------------------------------------------------------------------
// BERT: 2 layers × 2 heads, d 8, d_ff 16, 16 positions, 2 token types, 30 tokens, 3 classes.

constexpr int64_t kBertLayers = 2;
constexpr int64_t kBertHeads = 2;
constexpr int64_t kBertWidth = 8;
constexpr int64_t kBertInner = 16;
constexpr int64_t kBertPositions = 16;
constexpr int64_t kBertTypes = 2;
constexpr int64_t kBertVocab = 30;
constexpr int64_t kBertClasses = 3;
constexpr double kBertEps = 1e-12;
const std::vector<int64_t> kBertLengths = {6, 4};  // unpadded length of each sequence of bert_input()

std::string bert_layer(int64_t layer, const std::string& rest) {
  return "encoder.layer." + std::to_string(layer) + "." + rest;
}

// Names as BertModel writes them (no "bert." prefix); classifier.* belong to the sequence classifier.
TensorMap random_bert_weights(uint64_t seed) {
  torch::manual_seed(seed);
  const int64_t d = kBertWidth;
  auto random = [](std::vector<int64_t> shape) { return torch::randn(shape) * kWeightScale; };
  TensorMap weights;
  auto linear = [&](const std::string& name, int64_t in, int64_t out) {
    weights[name + ".weight"] = random({out, in});
    weights[name + ".bias"] = random({out});
  };
  auto norm = [&](const std::string& name) {
    weights[name + ".weight"] = 1.0 + random({d});
    weights[name + ".bias"] = random({d});
  };
  weights["embeddings.word_embeddings.weight"] = random({kBertVocab, d});
  weights["embeddings.position_embeddings.weight"] = random({kBertPositions, d});
  weights["embeddings.token_type_embeddings.weight"] = random({kBertTypes, d});
  norm("embeddings.LayerNorm");
  for (int64_t layer = 0; layer < kBertLayers; ++layer) {
    linear(bert_layer(layer, "attention.self.query"), d, d);
    linear(bert_layer(layer, "attention.self.key"), d, d);
    linear(bert_layer(layer, "attention.self.value"), d, d);
    linear(bert_layer(layer, "attention.output.dense"), d, d);
    norm(bert_layer(layer, "attention.output.LayerNorm"));
    linear(bert_layer(layer, "intermediate.dense"), d, kBertInner);
    linear(bert_layer(layer, "output.dense"), kBertInner, d);
    norm(bert_layer(layer, "output.LayerNorm"));
  }
  linear("pooler.dense", d, d);
  linear("classifier", d, kBertClasses);
  return weights;
}

ModelInput bert_input() {
  ModelInput input;
  input.input_ids = torch::tensor({{2, 7, 8, 3, 12, 3}, {2, 15, 3, 20, 0, 0}}, torch::kLong);
  input.token_type_ids = torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 1, 0, 0}}, torch::kLong);
  input.attention_mask = torch::tensor({{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 0}}, torch::kLong);
  return input;
}

// BERT from its definition: embeddings + LayerNorm, post-LN blocks with key padding masked,
// erf GELU, tanh pooler on position 0, linear classifier (when `with_head`).
Reference bert_reference(const TensorMap& tensors, const ModelInput& input, bool with_head) {
  const Weights w(tensors);
  const int64_t batch = input.input_ids.size(0), length = input.input_ids.size(1), d = kBertWidth;
  auto lookup = [&](const std::string& table, const torch::Tensor& ids) {
    return w(table).index_select(0, ids.flatten()).view({batch, length, d});              // (B, n, d)
  };
  auto x = lookup("embeddings.word_embeddings.weight", input.input_ids) +
           w("embeddings.position_embeddings.weight").narrow(0, 0, length) +
           lookup("embeddings.token_type_embeddings.weight", input.token_type_ids);
  x = w.norm(x, "embeddings.LayerNorm", kBertEps);
  const auto padded_keys = input.attention_mask.eq(0).view({batch, 1, 1, length});         // (B, 1, 1, n)
  Reference reference;
  for (int64_t layer = 0; layer < kBertLayers; ++layer) {
    auto attention = attend(w.linear(x, bert_layer(layer, "attention.self.query")),
                            w.linear(x, bert_layer(layer, "attention.self.key")),
                            w.linear(x, bert_layer(layer, "attention.self.value")), padded_keys, kBertHeads);
    auto h = w.norm(x + w.linear(attention.mixed, bert_layer(layer, "attention.output.dense")),
                    bert_layer(layer, "attention.output.LayerNorm"), kBertEps);
    auto inner = gelu_erf(w.linear(h, bert_layer(layer, "intermediate.dense")));            // (B, n, d_ff)
    x = w.norm(h + w.linear(inner, bert_layer(layer, "output.dense")), bert_layer(layer, "output.LayerNorm"),
               kBertEps);                                                                   // (B, n, d)
    reference.attention.push_back(attention.probabilities);
  }
  reference.hidden = x;
  if (with_head) {
    auto pooled = torch::tanh(w.linear(x.select(1, 0), "pooler.dense"));                    // (B, d)
    reference.logits = w.linear(pooled, "classifier");                                      // (B, C)
  }
  return reference;
}

struct BertLayout {
  bool bert_prefix = true;  // BertForSequenceClassification writes "bert.embeddings…"
  bool classifier = true;   // architectures BertForSequenceClassification (else BertModel)
};

void write_bert_folder(const TempDir& dir, const TensorMap& weights, const BertLayout& layout) {
  nlohmann::json config = {
      {"model_type", "bert"},
      {"architectures", {layout.classifier ? "BertForSequenceClassification" : "BertModel"}},
      {"hidden_size", kBertWidth},
      {"num_hidden_layers", kBertLayers},
      {"num_attention_heads", kBertHeads},
      {"intermediate_size", kBertInner},
      {"max_position_embeddings", kBertPositions},
      {"type_vocab_size", kBertTypes},
      {"vocab_size", kBertVocab},
      {"layer_norm_eps", kBertEps},
      {"hidden_act", "gelu"},
      {"hidden_dropout_prob", 0.1},
      {"attention_probs_dropout_prob", 0.1},
      {"pad_token_id", 0},
  };
  if (layout.classifier) {
    config["id2label"] = {{"0", "neg"}, {"1", "pos"}, {"2", "neu"}};
    config["label2id"] = {{"neg", 0}, {"pos", 1}, {"neu", 2}};
  }
  test::write_file(dir.file("config.json"), config.dump(2));

  std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
  for (const char* word : {"the", "a", "movie", "film", "was", "is", "not", "very", "good", "bad", "great", "boring",
                           "plot", "story", "and", "it", "fun", "dull", "acting", "##s", "##ing", "##ly", "!", ".",
                           ","})
    vocab += std::string(word) + "\n";
  test::write_file(dir.file("vocab.txt"), vocab);

  const std::string prefix = layout.bert_prefix ? "bert." : "";
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& [name, tensor] : weights) {
    const bool head = name.rfind("classifier.", 0) == 0;
    if (head && !layout.classifier) continue;
    tensors.emplace_back(head ? name : prefix + name, tensor);
  }
  tensors.emplace_back(prefix + "embeddings.position_ids", torch::arange(kBertPositions, torch::kLong).view({1, -1}));
  write_safetensors(dir.file("model.safetensors"), tensors, {{"format", "pt"}});
}

// The rows of `t` that belong to real tokens: for each sequence b, t[b] narrowed to its length along
// `query_dim` (a dimension of t[b]), flattened and concatenated.
torch::Tensor unpadded_rows(const torch::Tensor& t, int64_t query_dim) {
  std::vector<torch::Tensor> rows;
  for (int64_t b = 0; b < t.size(0); ++b) rows.push_back(t[b].narrow(query_dim, 0, kBertLengths[b]).flatten());
  return torch::cat(rows);
}

void expect_bert_matches_reference(const BertLayout& layout, uint64_t seed) {
  TempDir dir;
  const auto weights = random_bert_weights(seed);
  write_bert_folder(dir, weights, layout);
  const auto loaded = load_checkpoint(dir.path(), torch::kCPU);
  EXPECT_EQ(loaded.config.family, ModelFamily::Bert);
  EXPECT_EQ(loaded.tokenizer->kind(), "wordpiece");
  EXPECT_EQ(loaded.stored_dtype, "F32");

  const auto input = bert_input();
  const auto result = run_full(loaded, input);
  const auto reference = bert_reference(weights, input, layout.classifier);
  if (layout.classifier) {
    EXPECT_EQ(loaded.config.labels, (std::vector<std::string>{"neg", "pos", "neu"}));
    expect_close(result.logits, reference.logits, kFloat32Tolerance, "logits");
  } else {
    EXPECT_FALSE(result.logits.defined()) << "a BertModel has no head, so no logits";
  }
  ASSERT_TRUE(result.hidden.defined());
  expect_close(unpadded_rows(result.hidden, 0), unpadded_rows(reference.hidden, 0), kFloat32Tolerance,
               "hidden states of real tokens");
  ASSERT_EQ(result.attention.size(), static_cast<size_t>(kBertLayers));
  for (int64_t layer = 0; layer < kBertLayers; ++layer) {
    ASSERT_EQ(result.attention[layer].sizes().vec(), reference.attention[layer].sizes().vec());
    expect_close(unpadded_rows(result.attention[layer], 1), unpadded_rows(reference.attention[layer], 1),
                 kFloat32Tolerance, "attention of real query rows in layer " + std::to_string(layer));
  }
}

TEST(BertReference, SequenceClassifierMatchesFloat64Reference) {
  expect_bert_matches_reference({/*bert_prefix=*/true, /*classifier=*/true}, 201);
}

TEST(BertReference, SequenceClassifierWithoutBertPrefixMatchesFloat64Reference) {
  expect_bert_matches_reference({/*bert_prefix=*/false, /*classifier=*/true}, 202);
}

TEST(BertReference, EncoderWithoutHeadReturnsReferenceHiddenStates) {
  expect_bert_matches_reference({/*bert_prefix=*/false, /*classifier=*/false}, 203);
}

TEST(BertReference, PaddedKeysGetExactlyZeroAttention) {
  TempDir dir;
  write_bert_folder(dir, random_bert_weights(204), {});
  const auto result = run_full(load_checkpoint(dir.path()), bert_input());
  ASSERT_EQ(result.attention.size(), static_cast<size_t>(kBertLayers));
  for (const auto& probabilities : result.attention) {
    const auto to_padding = probabilities[1].index({Slice(), Slice(), Slice(kBertLengths[1], None)});  // (H, n, 2)
    EXPECT_EQ(to_padding.abs().max().item<double>(), 0.0);
    const auto sums = probabilities.to(torch::kFloat64).sum(-1);
    EXPECT_TRUE(torch::allclose(sums, torch::ones_like(sums), 0.0, 1e-6)) << test::max_difference(sums, torch::ones_like(sums));
  }
}

// ---------------------------------------------------------------------------------------------
// Loader errors on the Hugging Face layouts: one line naming the file, the tensor and the shapes.

std::string load_error(const std::string& dir) {
  try {
    load_checkpoint(dir, torch::kCPU);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
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

}  // namespace
}  // namespace aw
