// models/nn/recurrent_encoder.h — the parts the recurrent classifiers (lama, bigru_mean) share: word
// embeddings read by a one-layer bidirectional GRU over the unpadded words of each document, and
// the classifier MLP on top. Dimension letters: B batch, n words, E embedding width, h GRU hidden
// size per direction (annotations are 2h wide), C classes.
#pragma once

#include "models/nn/model_config.h"
#include "models/nn/transformer.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/rnn.h>

namespace aw {

// Embedding table "embedding.weight" [V, E] and GRU "gru.*" (PyTorch's nn.GRU names, "_reverse"
// for the backward direction). No dropout here: the paper's only dropout is in the classifier MLP.
class WordGruImpl : public torch::nn::Module {
 public:
  explicit WordGruImpl(const ModelConfig& config);

  struct Output {
    torch::Tensor embeddings;   // [B, n, E]
    torch::Tensor annotations;  // [B, n, 2h]: forward ‖ backward state per word, 0 on padding
  };
  // ids [B, n]; lengths [B] int64 on the CPU, each in 1..n (the backward direction starts at the
  // last real word, not at the padding).
  Output forward(const torch::Tensor& ids, const torch::Tensor& lengths);

  Lookup embedding{nullptr};
  torch::nn::GRU gru{nullptr};
};
TORCH_MODULE(WordGru);

// fc2(dropout(relu(fc1(x)))): "fc1" [hidden, in], "fc2" [C, hidden].
class ClassifierMlpImpl : public torch::nn::Module {
 public:
  ClassifierMlpImpl(int64_t in, int64_t hidden, int64_t classes, double dropout);
  torch::Tensor forward(const torch::Tensor& x);
  Dense fc1{nullptr}, fc2{nullptr};

 private:
  double dropout_;
};
TORCH_MODULE(ClassifierMlp);

// Words per document [B] (int64, CPU) from the attention mask; all n when it is undefined. Throws
// aw::Error for a document without words (its attention and mean would be 0/0).
torch::Tensor document_lengths(const ModelInput& input);

// A fresh recurrent model's weights: embeddings N(0, 0.1), dense layers Xavier-uniform with zero
// biases, the GRU as LibTorch initialises it (uniform ±1/√h).
void initialise_recurrent_weights(torch::nn::Module& module);

}  // namespace aw
