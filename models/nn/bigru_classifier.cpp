// models/nn/bigru_classifier.cpp — see bigru_classifier.h.
#include "models/nn/bigru_classifier.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {

BiGruMeanImpl::BiGruMeanImpl(ModelConfig config) : config_(std::move(config)) {
  encoder = register_module("encoder", WordGru(config_));
  mlp = register_module("mlp", ClassifierMlp(2 * config_.recurrent.rnn_hidden, config_.recurrent.classifier_hidden, config_.num_labels,
                                             config_.dropout));
  initialise_recurrent_weights(*this);
}

torch::Tensor BiGruMeanImpl::embed(const ModelInput& input) {
  TORCH_CHECK(input.input_ids.dim() == 2, "input_ids must be [B, n]");
  const auto device = mlp->fc1->weight.device();
  return encoder(input.input_ids.to(device), document_lengths(input)).annotations;       // (B, n, 2h)
}

LayersResult BiGruMeanImpl::run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer,
                                       int64_t end_layer, const ForwardOptions& options) {
  (void)input;
  (void)first_layer;
  (void)end_layer;
  if (options.head_gates.defined()) throw Error("bigru_mean has no attention heads to gate");
  return {std::move(hidden), {}};
}

torch::Tensor BiGruMeanImpl::output(const torch::Tensor& hidden, const ModelInput& input) {
  // Padding annotations are 0 (pad_packed_sequence), so the sum over all positions is the sum over words.
  const auto lengths = document_lengths(input).to(hidden.device(), hidden.scalar_type());  // (B)
  return mlp(hidden.sum(1) / lengths.unsqueeze(-1));                                      // (B, C)
}

ForwardResult BiGruMeanImpl::forward(const ModelInput& input, const ForwardOptions& options) {
  ForwardResult result;
  result.hidden = run_layers(embed(input), input, 0, 0, options).hidden;
  result.logits = output(result.hidden, input);
  return result;
}

}  // namespace aw
