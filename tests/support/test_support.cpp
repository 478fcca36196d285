// tests/support/test_support.cpp — see test_support.h.
#include "tests/support/test_support.h"

#include "models/checkpoint/checkpoint.h"
#include "models/checkpoint/safetensors.h"
#include "models/checkpoint/weight_bindings.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace aw::test {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device device;
  const auto base = fs::temp_directory_path() / ("aw-test-" + std::to_string(device()) + std::to_string(device()));
  fs::create_directories(base);
  path_ = base.string();
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

ModelConfig tiny_config(const std::string& model_type) {
  nlohmann::json json = {{"model_type", model_type}, {"vocab_size", 20}, {"n_layers", 2},     {"n_heads", 3},
                         {"d_model", 12},            {"d_ff", 24},       {"max_positions", 16}, {"dropout", 0.0}};
  return parse_model_config(json, "tiny config");
}

ModelConfig tiny_lama_config(const std::string& model_type, const std::string& context, int64_t embedding_dim) {
  nlohmann::json json = {{"model_type", model_type}, {"vocab_size", 20},       {"embedding_dim", embedding_dim},
                         {"rnn_hidden", 4},          {"classifier_hidden", 10}, {"max_positions", 16},
                         {"dropout", 0.0},           {"labels", {"1", "2", "3"}}};
  if (model_type == "lama") {
    json["n_heads"] = 3;
    json["context"] = context;
  }
  return parse_model_config(json, "tiny lama config");
}

std::vector<std::string> tiny_vocabulary(int64_t size) {
  std::vector<std::string> vocabulary = {"<unk>", "<eos>"};
  for (int64_t i = 2; i < size; ++i) vocabulary.push_back("w" + std::to_string(i));
  vocabulary.resize(size);
  return vocabulary;
}

void write_tiny_checkpoint(const std::string& dir, const ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  auto model = create_model(config);
  // Larger weights than the default init, so attention patterns are far from uniform.
  torch::NoGradGuard no_grad;
  for (auto& parameter : model->module().parameters())
    if (parameter.dim() >= 2) parameter.normal_(0.0, 0.4);
  save_native_checkpoint(dir, *model, tiny_vocabulary(config.vocab_size));
}

void write_tiny_bert_checkpoint(const std::string& dir, bool classifier, uint64_t seed) {
  const std::vector<std::string> words = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film",
                                          "was", "good", "bad", "not", "very", "plot", "##s", "."};
  nlohmann::json json = {{"model_type", "bert"},
                         {"architectures", {classifier ? "BertForSequenceClassification" : "BertModel"}},
                         {"vocab_size", words.size()},
                         {"hidden_size", 8},
                         {"num_hidden_layers", 2},
                         {"num_attention_heads", 2},
                         {"intermediate_size", 16},
                         {"max_position_embeddings", 16},
                         {"type_vocab_size", 2},
                         {"hidden_dropout_prob", 0.0}};
  if (classifier) json["id2label"] = {{"0", "neg"}, {"1", "pos"}};
  fs::create_directories(dir);
  write_file(dir + "/config.json", json.dump(2));
  std::string vocabulary;
  for (const auto& word : words) vocabulary += word + "\n";
  write_file(dir + "/vocab.txt", vocabulary);

  // A random model of this config, written under BERT's names through the loader's own table.
  torch::manual_seed(seed);
  const auto config = parse_model_config(json, dir + "/config.json");
  auto model = create_model(config);
  const auto parameters = model->module().named_parameters();
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  const auto table = foreign_weight_table(config);
  for (const auto& binding : table->bindings)
    tensors.emplace_back(binding.sources.front(), parameters[binding.parameter].detach());
  write_safetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}});
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string utf8(uint32_t code_point) {
  std::string text;
  if (code_point < 0x80) {
    text += static_cast<char>(code_point);
  } else {
    text += static_cast<char>(0xC0 | (code_point >> 6));
    text += static_cast<char>(0x80 | (code_point & 0x3F));
  }
  return text;
}

void copy_weights(torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  auto copy = [](const torch::OrderedDict<std::string, torch::Tensor>& source,
                 torch::OrderedDict<std::string, torch::Tensor> target) {
    if (source.size() != target.size())
      throw Error("copy_weights: " + std::to_string(source.size()) + " tensors into " + std::to_string(target.size()));
    for (auto& item : target) {
      const auto* found = source.find(item.key());
      if (!found) throw Error("copy_weights: '" + item.key() + "' is missing from the source");
      if (found->sizes() != item.value().sizes()) throw Error("copy_weights: '" + item.key() + "' has another shape");
      item.value().copy_(*found);
    }
  };
  copy(from.named_parameters(), to.named_parameters());
  copy(from.named_buffers(), to.named_buffers());
}

std::string max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  std::ostringstream text;
  text << "max |a - b| = " << (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
  return text.str();
}

}  // namespace aw::test
