// models/nn/recurrent_encoder.cpp — see recurrent_encoder.h.
#include "models/nn/recurrent_encoder.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

WordGruImpl::WordGruImpl(const ModelConfig& config) {
  const auto& recurrent = config.recurrent;
  embedding = register_module("embedding", Lookup(config.vocab_size, recurrent.embedding_dim));
  gru = register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(recurrent.embedding_dim, recurrent.rnn_hidden)
                                                  .num_layers(1)
                                                  .batch_first(true)
                                                  .bidirectional(true)));
}

WordGruImpl::Output WordGruImpl::forward(const torch::Tensor& ids, const torch::Tensor& lengths) {
  Output output;
  output.embeddings = embedding(ids);                                                       // (B, n, E)
  // Packed by length, so each direction sees exactly the document's words.
  const auto packed = torch::nn::utils::rnn::pack_padded_sequence(output.embeddings, lengths, /*batch_first=*/true,
                                                                  /*enforce_sorted=*/false);
  const auto states = std::get<0>(gru->forward_with_packed_input(packed));
  output.annotations = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(
      states, /*batch_first=*/true, /*padding_value=*/0.0, /*total_length=*/ids.size(1)));  // (B, n, 2h)
  return output;
}

ClassifierMlpImpl::ClassifierMlpImpl(int64_t in, int64_t hidden, int64_t classes, double dropout) : dropout_(dropout) {
  fc1 = register_module("fc1", Dense(in, hidden, true));
  fc2 = register_module("fc2", Dense(hidden, classes, true));
}

torch::Tensor ClassifierMlpImpl::forward(const torch::Tensor& x) {
  return fc2(torch::dropout(torch::relu(fc1(x)), dropout_, is_training()));
}

torch::Tensor document_lengths(const ModelInput& input) {
  const auto batch = input.input_ids.size(0), length = input.input_ids.size(1);
  if (!input.attention_mask.defined()) return torch::full({batch}, length, torch::kLong);
  const auto lengths = input.attention_mask.sum(1).to(torch::kCPU, torch::kLong);           // (B)
  if (lengths.min().item<int64_t>() < 1)
    throw Error("a document has no words (empty text after tokenisation); a classifier needs at least one");
  return lengths;
}

void initialise_recurrent_weights(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& item : module.named_parameters()) {
    const auto& name = item.key();
    auto& tensor = item.value();
    if (name.find(".gru.") != std::string::npos || name.rfind("gru.", 0) == 0) continue;  // GRU keeps its own init
    if (name.find("embedding") != std::string::npos) tensor.normal_(0.0, 0.1);
    else if (tensor.dim() == 1) tensor.zero_();
    else torch::nn::init::xavier_uniform_(tensor);
  }
}

}  // namespace aw
