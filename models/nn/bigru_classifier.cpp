// models/nn/bigru_classifier.cpp — see bigru_classifier.h.
#include "models/nn/bigru_classifier.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <limits>

namespace aw {

BiGruImpl::BiGruImpl(ModelConfig config) : config_(std::move(config)) {
  encoder = register_module("encoder", WordGru(config_));
  mlp = register_module("mlp", ClassifierMlp(2 * config_.recurrent.rnn_hidden, config_.recurrent.classifier_hidden, config_.num_labels,
                                             config_.dropout));
  initialise_recurrent_weights(*this);
}

torch::Tensor BiGruImpl::embed(const ModelInput& input) {
  TORCH_CHECK(input.input_ids.dim() == 2, "input_ids must be [B, n]");
  const auto device = mlp->fc1->weight.device();
  return encoder(input.input_ids.to(device), document_lengths(input)).annotations;       // (B, n, 2h)
}

LayersResult BiGruImpl::run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer,
                                       int64_t end_layer, const ForwardOptions& options) {
  (void)input;
  (void)first_layer;
  (void)end_layer;
  if (options.head_gates.defined()) throw Error(config_.family_name() + " has no attention heads to gate");
  return {std::move(hidden), {}};
}

torch::Tensor BiGruImpl::output(const torch::Tensor& hidden, const ModelInput& input) {
  const auto lengths = document_lengths(input).to(hidden.device());                        // (B)
  if (config_.recurrent.pooling == RecurrentPooling::Max) {
    // Padding annotations are 0, which could beat a word's negative value: they are excluded.
    const auto positions = torch::arange(hidden.size(1), lengths.options()).unsqueeze(0);  // (1, n)
    const auto padding = positions.ge(lengths.unsqueeze(1)).unsqueeze(-1);                  // (B, n, 1)
    return mlp(std::get<0>(hidden.masked_fill(padding, -std::numeric_limits<float>::infinity()).max(1)));
  }
  // Padding annotations are 0 (pad_packed_sequence), so the sum over all positions is the sum over words.
  return mlp(hidden.sum(1) / lengths.to(hidden.scalar_type()).unsqueeze(-1));              // (B, C)
}

ForwardResult BiGruImpl::forward(const ModelInput& input, const ForwardOptions& options) {
  ForwardResult result;
  result.hidden = run_layers(embed(input), input, 0, 0, options).hidden;
  result.logits = output(result.hidden, input);
  return result;
}

}  // namespace aw
