// analysis/heads/head_importance.cpp — see head_importance.h.
#include "analysis/heads/head_importance.h"

#include "analysis/heads/head_ablation.h"
#include "models/training/token_loss.h"
#include "models/distribution.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace aw {
namespace {

// Parameters that require grad make autograd record every product with a weight and keep its
// inputs for a weight gradient nobody asked for: only the gates' gradient is wanted. They are
// switched off for the analysis and restored afterwards (also when it throws).
class FrozenParameters {
 public:
  explicit FrozenParameters(torch::nn::Module& module) {
    for (auto& parameter : module.parameters())
      if (parameter.requires_grad()) frozen_.push_back(parameter.requires_grad_(false));
  }
  ~FrozenParameters() {
    for (auto& parameter : frozen_) parameter.requires_grad_(true);
  }
  FrozenParameters(const FrozenParameters&) = delete;
  FrozenParameters& operator=(const FrozenParameters&) = delete;

 private:
  std::vector<torch::Tensor> frozen_;
};

// ∂L/∂ξ for one batch. With gates [L, H], L is the batch's mean loss; with gates [B, L, H] (one row
// per example) it is the sum of each example's own mean loss, so row x of the result is ∂L(x)/∂ξ.
// For a language model the output layer and loss run in chunks (models/training/token_loss.h) and their
// gradient enters the layers' backward as ∂L/∂hidden.
torch::Tensor gate_gradient(AttentionModel& model, const EvaluationData& data, int64_t index, const ModelInput& input,
                            const torch::Tensor& gates) {
  const bool per_example = gates.dim() == 3;
  ForwardOptions options;
  options.head_gates = gates;
  const auto hidden = model.run_layers(model.embed(input), input, 0, model.config().n_blocks, options).hidden;
  if (data.is_classification()) {
    const auto logits = model.output(hidden, input).to(torch::kFloat32);                  // (B, C)
    const auto losses = torch::nn::functional::cross_entropy(
        logits, data.labels[index].to(logits.device()),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));  // (B)
    const auto loss = per_example ? losses.sum() : losses.mean();
    return torch::autograd::grad({loss}, {gates}).front();
  }
  const auto keep = predicted_token_mask(input, hidden.device(), hidden.scalar_type());  // (B, n−1)
  // Per example each row's tokens share its own weight 1/n_x (a row without a predicted token adds 0).
  const auto weights = per_example ? keep / keep.sum(1, true).clamp_min(1) : keep / keep.sum().clamp_min(1);  // (B, n−1)
  const auto loss = next_token_loss_and_gradient(model, hidden, weights, input);
  return torch::autograd::grad({hidden}, {gates}, {loss.hidden_gradient}).front();
}

// Whether a batch has a token to predict: a classifier's always does, a language model's windows of
// one token do not. The predicted ids are a translation model's targets, whose length is not its sources'.
bool predicts_anything(const EvaluationData& data, const ModelInput& input) {
  if (data.is_classification()) return true;
  const int64_t length = input.predicted_ids().size(1);
  if (length < 2) return false;
  const auto& mask = input.predicted_mask();
  return !mask.defined() || mask.narrow(1, 1, length - 1).any().item<bool>();
}

}  // namespace

ImportanceResult head_importance(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                 bool normalize, const torch::Tensor& base_gates, const ProgressCallback& progress,
                                 bool per_example) {
  const auto& config = model.config();
  require_attention_heads(config, model_name, "importance");
  check_data_fits(config, data);
  model.module().eval();  // no dropout: the gradient of the model as it is evaluated
  const FrozenParameters frozen(model.module());
  const auto device = model.module().parameters().front().device();
  const auto base = (base_gates.defined() ? base_gates : all_heads_on(config)).to(device, torch::kFloat32);
  const auto& distribution = current_distribution();  // which batches this process computes
  ImportanceResult result;
  result.model = model_name;
  result.normalized = normalize;
  result.names = block_names(config);
  result.per_example = per_example;
  const auto batches = static_cast<int64_t>(data.inputs.size());
  BatchSums sums(batches, base.sizes().vec(), base.options());
  for (int64_t index = 0; index < batches; ++index) {
    if (!distribution.owns(index)) {
      if (!report_progress(progress, index + 1, batches)) return result.cancelled = true, result;
      continue;
    }
    const auto input = data.inputs[index].to(device);
    const auto rows = input.input_ids.size(0);
    if (!predicts_anything(data, input)) {  // windows of one token: no loss, not a batch of the mean
      if (!report_progress(progress, index + 1, batches)) return result.cancelled = true, result;
      continue;
    }
    auto gates = (per_example ? base.unsqueeze(0).repeat({rows, 1, 1}) : base.clone()).requires_grad_(true);
    const auto gradient = gate_gradient(model, data, index, input, gates).abs();
    sums.row(index).copy_(per_example ? gradient.sum(0) : gradient);
    result.examples += rows;
    ++result.batches;
    if (!report_progress(progress, index + 1, batches)) {
      result.cancelled = true;
      break;
    }
  }

  // A cancelled share is not added to the others' (they would wait for it); one process keeps its part.
  if (result.cancelled && distribution.shared()) return result;
  const auto sum = sums.total(distribution);
  if (distribution.shared()) {
    auto counts = torch::tensor({result.examples, result.batches}, torch::kLong);
    distribution.sum_over_processes(counts);
    result.examples = counts[0].item<int64_t>();
    result.batches = counts[1].item<int64_t>();
  }
  const auto averaged_over = per_example ? result.examples : result.batches;
  auto mean = (sum / static_cast<double>(std::max<int64_t>(1, averaged_over))).to(torch::kCPU, torch::kFloat64);
  for (int64_t layer = 0; layer < config.n_blocks; ++layer) {
    auto row = mean[layer].narrow(0, 0, config.heads_per_block[layer]);
    if (normalize) {
      const double norm = row.norm().item<double>();
      if (norm > 0) row = row / norm;
    }
    const auto values = row.contiguous();
    result.scores.emplace_back(values.data_ptr<double>(), values.data_ptr<double>() + values.numel());
  }
  return result;
}

ResultTable importance_table(const ImportanceResult& result) {
  ResultTable table;
  table.meta("model", result.model).meta("normalized", result.normalized);
  if (result.per_example) table.meta("per_example", true);
  result.names.add_columns(table);
  table.add_column("head", ColumnType::Integer).add_column("importance", ColumnType::Number);
  auto blocks = result.blocks;
  if (blocks.empty())
    for (size_t layer = 0; layer < result.scores.size(); ++layer) blocks.push_back(static_cast<int64_t>(layer));
  for (const auto layer : blocks)
    for (size_t head = 0; head < result.scores[layer].size(); ++head) {
      auto row = result.names.cells(layer);
      append_cells(row, {cell(head + 1), result.scores[layer][head]});
      table.add_row(std::move(row));
    }
  return table;
}

}  // namespace aw
