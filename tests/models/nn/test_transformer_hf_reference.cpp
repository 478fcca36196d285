// tests/models/nn/test_transformer_hf_reference.cpp — the transformer on Hugging Face GPT-2 and BERT
// folders (tests/support/hf_layout_folders.h): loaded through aw::load_checkpoint, their forward passes
// match an independent float64 implementation of each architecture written in this file from the raw
// tensors (it never calls the aw:: model code).
// Dimension letters: B batch, n sequence length, H heads, dh head width, d model width, V vocabulary, P
// positions, C classes.
#include "models/checkpoint/checkpoint.h"
#include "models/nn/config_enums.h"
#include "models/nn/model.h"
#include "tests/support/hf_layout_folders.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using namespace test::hf_layout;
using test::TempDir;
using torch::indexing::None;
using torch::indexing::Slice;

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
// GPT-2 (its sizes and folder writer: tests/support/hf_layout_folders.h).

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
// BERT (its sizes and folder writer: tests/support/hf_layout_folders.h).

const std::vector<int64_t> kBertLengths = {6, 4};  // unpadded length of each sequence of bert_input()

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

}  // namespace
}  // namespace aw
