// tests/support/hf_layout_folders.h — Hugging Face GPT-2 and BERT folders written here with tiny
// random weights under Hugging Face's names and layouts (config.json, the tokenizer files,
// model.safetensors), as a download of such a model holds them.
// GPT-2: 2 layers × 2 heads, d 8, 16 positions, 260 tokens (256 byte symbols + 4 merges).
// BERT: 2 layers × 2 heads, d 8, d_ff 16, 16 positions, 2 token types, 30 tokens, 3 classes.
#pragma once

#include "models/checkpoint/safetensors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aw::test::hf_layout {

using TensorMap = std::map<std::string, torch::Tensor>;

constexpr double kWeightScale = 0.3;  // large enough that attention is far from uniform

constexpr int64_t kGpt2Layers = 2;
constexpr int64_t kGpt2Heads = 2;
constexpr int64_t kGpt2Width = 8;
constexpr int64_t kGpt2Positions = 16;
constexpr int64_t kGpt2Vocab = 260;
constexpr double kGpt2Eps = 1e-5;

inline std::string gpt2_layer(int64_t layer, const std::string& rest) { return "h." + std::to_string(layer) + "." + rest; }

inline TensorMap random_gpt2_weights(uint64_t seed) {
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

// GPT-2's bytes_to_unicode: printable bytes keep their code point, the other 68 take 256, 257, …
// in increasing byte order. Returned in vocabulary order (increasing code point), as GPT-2's ids.
inline std::vector<std::string> byte_symbols_in_vocab_order() {
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

inline void write_gpt2_tokenizer(const TempDir& dir) {
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
  write_file(dir.file("vocab.json"), vocab.dump());
  write_file(dir.file("merges.txt"), merges_text);
}

// A Hugging Face GPT-2 folder: config.json, vocab.json, merges.txt and model.safetensors holding
// `weights` (every name after `prefix`, in `storage`) plus the causal-mask buffers the loader ignores.
inline void write_gpt2_folder(const TempDir& dir, const TensorMap& weights, const std::string& prefix,
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
  write_file(dir.file("config.json"), config.dump(2));
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

constexpr int64_t kBertLayers = 2;
constexpr int64_t kBertHeads = 2;
constexpr int64_t kBertWidth = 8;
constexpr int64_t kBertInner = 16;
constexpr int64_t kBertPositions = 16;
constexpr int64_t kBertTypes = 2;
constexpr int64_t kBertVocab = 30;
constexpr int64_t kBertClasses = 3;
constexpr double kBertEps = 1e-12;

inline std::string bert_layer(int64_t layer, const std::string& rest) {
  return "encoder.layer." + std::to_string(layer) + "." + rest;
}

// Names as BertModel writes them (no "bert." prefix); classifier.* belong to the sequence classifier.
inline TensorMap random_bert_weights(uint64_t seed) {
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

struct BertLayout {
  bool bert_prefix = true;  // BertForSequenceClassification writes "bert.embeddings…"
  bool classifier = true;   // architectures BertForSequenceClassification (else BertModel)
};

inline void write_bert_folder(const TempDir& dir, const TensorMap& weights, const BertLayout& layout) {
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
  write_file(dir.file("config.json"), config.dump(2));

  std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
  for (const char* word : {"the", "a", "movie", "film", "was", "is", "not", "very", "good", "bad", "great", "boring",
                           "plot", "story", "and", "it", "fun", "dull", "acting", "##s", "##ing", "##ly", "!", ".",
                           ","})
    vocab += std::string(word) + "\n";
  write_file(dir.file("vocab.txt"), vocab);

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

}  // namespace aw::test::hf_layout
