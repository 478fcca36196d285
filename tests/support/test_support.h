// tests/support/test_support.h — small things most test files need (built once, as the library
// aw_test_support): a temporary folder, tiny configs and native checkpoints written on the fly.
#pragma once

#include "models/errors.h"
#include "models/nn/model_config.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace aw::test {

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A tiny native config (2 layers × 3 heads, d 12, vocabulary 20, 16 positions) of `model_type`,
// dropout 0 so training mode is deterministic.
ModelConfig tiny_config(const std::string& model_type);

// A tiny recurrent classifier (lama or bigru_mean): vocabulary 20, E 6, h 4 (annotations 8 wide),
// 3 heads, MLP hidden 10, classes "1" "2" "3", 16 positions, dropout 0. `context`: "mean" (E ≠ 2h,
// so through context_proj) or "learned".
ModelConfig tiny_lama_config(const std::string& model_type = "lama", const std::string& context = "mean",
                             int64_t embedding_dim = 6);

// "<unk>", "<eos>", "w2", "w3", … — `size` tokens.
std::vector<std::string> tiny_vocabulary(int64_t size);

// Writes a randomly initialised native checkpoint of `config` into `dir` (seeded).
void write_tiny_checkpoint(const std::string& dir, const ModelConfig& config, uint64_t seed = 7);

// Writes a randomly initialised Hugging Face BERT folder (config.json, model.safetensors under
// BERT's tensor names, a WordPiece vocab.txt): 2 layers × 2 heads, d 8, 16 positions. With
// `classifier` it is a BertForSequenceClassification with the classes "neg" and "pos", else a
// plain BertModel encoder.
void write_tiny_bert_checkpoint(const std::string& dir, bool classifier, uint64_t seed = 7);

// Writes text to a file.
void write_file(const std::string& path, const std::string& text);

// A file's bytes ("" when it cannot be read).
std::string file_bytes(const std::string& path);

// The exact aw::Error message `action` throws ("" if it throws none).
template <typename Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// One code point below U+0800 as UTF-8 (enough for GPT-2's byte symbols).
std::string utf8(uint32_t code_point);

// Copies every parameter and buffer of `from` into the one of the same name in `to` (the same model
// under another config, say); a name missing from `from` or a shape that differs is an error.
void copy_weights(torch::nn::Module& from, torch::nn::Module& to);

// "max |a − b| = …" for failure messages.
std::string max_difference(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace aw::test
