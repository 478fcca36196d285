// app/model_session.cpp — see model_session.h.
#include "app/model_session.h"

#include "analysis/attention_export.h"
#include "models/checkpoint.h"
#include "models/errors.h"
#include "models/runtime.h"

#include <torch/torch.h>

namespace aw {

struct ModelSession::Impl {
  torch::Device device = resolve_device("auto");
  std::vector<LoadedModel> models;
  std::vector<ModelSummary> summaries;
};

ModelSession::ModelSession() : impl_(std::make_unique<Impl>()) {
  configure_allocator();
  configure_threads();
}
ModelSession::~ModelSession() = default;

ModelSummary ModelSession::load(const QString& dir) {
  auto loaded = load_checkpoint(dir.toStdString(), impl_->device);
  ModelSummary summary;
  summary.name = QString::fromStdString(loaded.name);
  summary.dir = dir;
  summary.architecture = QString::fromStdString(loaded.config.model_type);
  summary.layers = static_cast<int>(loaded.config.n_layers);
  for (auto heads : loaded.config.heads_per_layer) summary.heads_per_layer.push_back(static_cast<int>(heads));
  summary.parameters = loaded.parameter_count;
  summary.dtype = QString::fromStdString(loaded.stored_dtype);
  summary.max_positions = static_cast<int>(loaded.config.max_positions);
  impl_->models.push_back(std::move(loaded));
  impl_->summaries.push_back(summary);
  return summary;
}

int ModelSession::count() const { return static_cast<int>(impl_->models.size()); }
const ModelSummary& ModelSession::summary(int index) const { return impl_->summaries.at(index); }
QString ModelSession::deviceDescription() const { return QString::fromStdString(describe_device(impl_->device)); }

AttentionCapture ModelSession::attend(int index, const QString& text) const {
  const auto& loaded = impl_->models.at(index);
  const auto encoding = loaded.tokenizer->encode(text.toStdString());
  if (encoding.ids.empty()) throw Error("the sentence gives no tokens");
  if (static_cast<int64_t>(encoding.ids.size()) > loaded.config.max_positions)
    throw Error("the sentence has " + std::to_string(encoding.ids.size()) + " tokens but " + loaded.name +
                " allows " + std::to_string(loaded.config.max_positions));
  c10::InferenceMode inference;  // the conversion below reads the captured tensors
  const auto result = capture_attention(*loaded.model, encoding);

  AttentionCapture capture;
  for (const auto& token : encoding.tokens) capture.tokens << QString::fromStdString(token);
  for (const auto& layer : result.attention) {
    const auto values = layer.select(0, 0).to(torch::kCPU, torch::kFloat32).contiguous();  // (H, n, n)
    capture.heads_per_layer.push_back(static_cast<int>(values.size(0)));
    capture.weights_by_layer.emplace_back(values.data_ptr<float>(), values.data_ptr<float>() + values.numel());
  }
  return capture;
}

}  // namespace aw
