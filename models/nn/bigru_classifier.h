// models/nn/bigru_classifier.h — LAMA's baseline without attention: word embeddings → one-layer
// bi-GRU → the annotations pooled over the unpadded words → the same MLP as LAMA. bigru_max pools by
// the maximum of each annotation dimension (the paper's baseline), bigru_mean by their mean.
// In the AttentionModel contract it has no attention layers (n_blocks 0): run_layers passes the
// annotations through, capture returns nothing, and gates are refused.
#pragma once

#include "models/nn/model.h"
#include "models/nn/recurrent_encoder.h"

namespace aw {

class BiGruImpl : public torch::nn::Module, public AttentionModel {
 public:
  explicit BiGruImpl(ModelConfig config);

  const ModelConfig& config() const override { return config_; }
  torch::nn::Module& module() override { return *this; }

  ForwardResult forward(const ModelInput& input, const ForwardOptions& options = {}) override;
  torch::Tensor embed(const ModelInput& input) override;  // annotations (B, n, 2h)
  LayersResult run_layers(torch::Tensor hidden, const ModelInput& input, int64_t first_layer, int64_t end_layer,
                          const ForwardOptions& options) override;
  torch::Tensor output(const torch::Tensor& hidden, const ModelInput& input) override;  // (B, C)

  WordGru encoder{nullptr};
  ClassifierMlp mlp{nullptr};  // 2h → classifier_hidden → C

 private:
  ModelConfig config_;
};
TORCH_MODULE(BiGru);

}  // namespace aw
