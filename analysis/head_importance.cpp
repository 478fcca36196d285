// analysis/head_importance.cpp — see head_importance.h.
#include "analysis/head_importance.h"

#include "analysis/head_ablation.h"
#include "models/errors.h"
#include "models/evaluation.h"

#include <torch/torch.h>

#include <cmath>
#include <sstream>

namespace aw {

ImportanceResult head_importance(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 bool normalize, const torch::Tensor& base_gates, const ProgressCallback& progress) {
  const auto& config = model.config();
  require_attention_heads(config, model_name, "importance");
  check_data_fits(config, data);
  model.module().eval();  // no dropout: the gradient of the model as it is evaluated
  const auto device = model.module().parameters().front().device();
  const auto base = (base_gates.defined() ? base_gates : all_heads_on(config)).to(device, torch::kFloat32);
  auto sum = torch::zeros_like(base);

  ImportanceResult result;
  result.model = model_name;
  result.normalized = normalize;
  const auto batches = static_cast<int64_t>(data.inputs.size());
  for (int64_t index = 0; index < batches; ++index) {
    ModelInput input = data.inputs[index];
    auto gates = base.clone().requires_grad_(true);
    ForwardOptions options;
    options.head_gates = gates;
    const auto logits = model.forward(input, options).logits;
    torch::Tensor loss;
    if (data.is_classification()) {
      loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), data.labels[index].to(device));
    } else {
      const auto sums = language_model_loss(logits, input);
      loss = sums.total / sums.count;
    }
    const auto gradient = torch::autograd::grad({loss}, {gates}).front();
    sum += gradient.abs().detach();
    ++result.batches;
    if (!report_progress(progress, index + 1, batches)) {
      result.cancelled = true;
      break;
    }
  }

  auto mean = (sum / static_cast<double>(std::max<int64_t>(1, result.batches))).to(torch::kCPU, torch::kFloat64);
  for (int64_t layer = 0; layer < config.n_layers; ++layer) {
    auto row = mean[layer].narrow(0, 0, config.heads_per_layer[layer]);
    if (normalize) {
      const double norm = row.norm().item<double>();
      if (norm > 0) row = row / norm;
    }
    const auto values = row.contiguous();
    result.scores.emplace_back(values.data_ptr<double>(), values.data_ptr<double>() + values.numel());
  }
  return result;
}

std::string importance_csv(const ImportanceResult& result) {
  std::ostringstream csv;
  csv.precision(6);
  csv << "# model=" << result.model << ", normalized=" << (result.normalized ? "true" : "false") << "\n";
  csv << "layer,head,importance\n";
  for (size_t layer = 0; layer < result.scores.size(); ++layer)
    for (size_t head = 0; head < result.scores[layer].size(); ++head)
      csv << layer + 1 << "," << head + 1 << "," << result.scores[layer][head] << "\n";
  return csv.str();
}

nlohmann::json importance_json(const ImportanceResult& result) {
  return {{"model", result.model},
          {"normalized", result.normalized},
          {"batches", result.batches},
          {"cancelled", result.cancelled},
          {"importance", result.scores}};
}

}  // namespace aw
