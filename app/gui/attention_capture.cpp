// app/gui/attention_capture.cpp — AttentionCapture's own functions (model_session.h); no LibTorch.
#include "app/gui/model_session.h"

#include "models/errors.h"

namespace aw {

std::optional<AttentionKind> AttentionCapture::layerKind(int layer) const {
  if (layer < 0 || layer >= static_cast<int>(layer_kinds.size())) return std::nullopt;
  return layer_kinds[layer];
}

const QStringList& AttentionCapture::rowTokens(int layer) const {
  if (!row_labels.isEmpty()) return row_labels;
  const auto kind = layerKind(layer);
  return kind && queries_are_target(*kind) ? target_tokens : tokens;
}

const QStringList& AttentionCapture::columnTokens(int layer) const {
  if (!column_labels.isEmpty()) return column_labels;
  const auto kind = layerKind(layer);
  return kind && keys_are_target(*kind) ? target_tokens : tokens;
}

std::vector<Prediction> AttentionCapture::predictionsAt(int position) const {
  if (classifier) return predictions.empty() ? std::vector<Prediction>{} : predictions.front();
  if (position >= 0 && position < static_cast<int>(predictions.size())) return predictions[position];
  return predict_position ? predict_position(position) : std::vector<Prediction>{};
}

bool AttentionCapture::holdsLayer(int layer) const {
  return layer >= 0 && layer < layerCount() && layers[static_cast<size_t>(layer)].values != nullptr;
}

WeightBlock AttentionCapture::layer(int layer) const {
  if (layer < 0 || layer >= layerCount())
    throw Error("no layer " + std::to_string(layer + 1) + " in a capture of " + std::to_string(layerCount()));
  if (holdsLayer(layer)) return layers[static_cast<size_t>(layer)];
  if (!replay_layer) throw Error("layer " + std::to_string(layer + 1) + " of this capture is not held");
  return replay_layer(layer);
}

void AttentionCapture::holdOnly(int layer, WeightBlock block) {
  if (layer < 0 || layer >= layerCount()) return;
  if (replay_layer)
    for (auto& held : layers) held.values.reset();
  layers[static_cast<size_t>(layer)] = std::move(block);
}

int AttentionCapture::predictionCount() const {
  if (classifier) return predictions.empty() ? 0 : 1;
  return predict_position ? length() : static_cast<int>(predictions.size());
}

}  // namespace aw
