// analysis/circuits/token_attribution.cpp — see token_attribution.h.
#include "analysis/circuits/token_attribution.h"

#include "analysis/circuits/max_flow.h"
#include "analysis/circuits/translation_attribution.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <map>
#include <utility>

namespace aw {
namespace {

// The explained logit of each row of a forward's logits: [B].
torch::Tensor target_logits(const ForwardResult& result, const AttributionOutput& output) {
  const auto& logits = result.logits;
  if (output.position >= 0) return logits.select(1, output.position).select(1, output.target);  // [B, n, V]
  return logits.select(1, output.target);                                                      // [B, C]
}
torch::Tensor target_probabilities(const ForwardResult& result, const AttributionOutput& output) {
  const auto& logits = result.logits.to(torch::kFloat64);
  const auto rows = output.position >= 0 ? logits.select(1, output.position) : logits;
  return torch::softmax(rows, -1).select(1, output.target);
}

// Tiles of one layer's probabilities [1, H, r, n] by first row, joined: [H, n, n].
torch::Tensor joined(const std::map<int64_t, torch::Tensor>& tiles) {
  std::vector<torch::Tensor> parts;
  for (const auto& [first, tile] : tiles) parts.push_back(tile);
  return torch::cat(parts, 2).squeeze(0);
}

}  // namespace

const std::vector<std::string>& attribution_method_names() {
  static const std::vector<std::string> names{"attention", "rollout", "flow", "gradient"};
  return names;
}

torch::Tensor residual_attention(const torch::Tensor& pattern) {
  const auto mean = pattern.to(torch::kFloat64).mean(0);
  const auto mixed = 0.5 * mean + 0.5 * torch::eye(mean.size(0), mean.options());
  return mixed / mixed.sum(-1, /*keepdim=*/true);
}

torch::Tensor attention_rollout(const std::vector<torch::Tensor>& patterns, const torch::Tensor& readout) {
  auto row = readout.to(torch::kFloat64).unsqueeze(0);  // [1, n]: down from the last layer
  for (auto layer = patterns.rbegin(); layer != patterns.rend(); ++layer) row = torch::matmul(row, residual_attention(*layer));
  return row.squeeze(0);
}

torch::Tensor attention_flow(const std::vector<torch::Tensor>& patterns, const torch::Tensor& readout) {
  const auto layers = static_cast<int64_t>(patterns.size());
  const auto n = readout.size(0);
  // Node (l, i) = l·n + i for l = 0 … L (0: the input tokens), and the source last.
  const int64_t source = (layers + 1) * n;
  FlowNetwork network(source + 1);
  const auto weights = readout.to(torch::kCPU, torch::kFloat64).contiguous();
  const auto* weight = weights.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i)
    if (weight[i] > 0) network.add_edge(source, layers * n + i, weight[i]);
  for (int64_t l = 1; l <= layers; ++l) {
    const auto mixed = residual_attention(patterns[l - 1]).contiguous();
    const auto* data = mixed.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (data[i * n + j] > 0) network.add_edge(l * n + i, (l - 1) * n + j, data[i * n + j]);
  }
  auto flow = torch::zeros({n}, torch::kFloat64);
  for (int64_t j = 0; j < n; ++j) flow[j] = network.max_flow(source, j);
  return flow;
}

torch::Tensor gradient_rollout(const std::vector<torch::Tensor>& patterns, const std::vector<torch::Tensor>& gradients,
                               const torch::Tensor& readout) {
  const auto n = readout.size(0);
  auto relevance = torch::eye(n, torch::kFloat64);
  for (size_t l = 0; l < patterns.size(); ++l) {
    const auto weighted = (gradients[l].to(torch::kFloat64) * patterns[l].to(torch::kFloat64)).clamp_min(0).mean(0);
    relevance = relevance + torch::matmul(weighted, relevance);
  }
  return torch::matmul(readout.to(torch::kFloat64).unsqueeze(0), relevance).squeeze(0);
}

torch::Tensor output_readout(const ModelConfig& config, const AttributionOutput& output, const ModelInput& input) {
  const auto n = input.predicted_ids().size(1);  // a translation model's: the target's positions
  auto readout = torch::zeros({n}, torch::kFloat64);
  if (output.position >= 0) return readout.index_put_({output.position}, 1.0);
  if (config.pooling == Pooling::First) return readout.index_put_({0}, 1.0);
  const auto kept = input.attention_mask.defined() ? input.attention_mask[0].to(torch::kFloat64)
                                                   : torch::ones({n}, torch::kFloat64);
  return kept / kept.sum();
}

PatternGradients pattern_gradients(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                   const ForwardOptions& options) {
  const auto& config = model.config();
  model.module().eval();
  // The state entering the first layer made a leaf, so that every later tensor is in the graph and each
  // layer's probabilities, read at the pattern hook, get their total derivative (through the later
  // layers' attention too, as autograd on Hugging Face's returned attentions gives).
  std::vector<std::map<int64_t, torch::Tensor>> tiles(static_cast<size_t>(config.n_blocks));
  ForwardOptions forward = options;
  auto leaf = [](const HookSite&, const torch::Tensor& value) { return value.detach().requires_grad_(true); };
  forward.hooks.add(HookPoint::ResidPre, 0, leaf);
  // A translation model's decoder starts from its own embeddings: the state entering its first layer too.
  if (config.is_translation()) forward.hooks.add(HookPoint::ResidPre, config.translation.encoder_layers, leaf);
  forward.hooks.add(HookPoint::Pattern, -1, [&](const HookSite& site, const torch::Tensor& value) {
    tiles[site.layer][site.first_position] = value;
    return torch::Tensor();
  });
  torch::AutoGradMode gradients_on(true);
  const auto result = model.forward(input, forward);
  auto explained = output;
  if (explained.target < 0) {  // the top prediction, from this same forward
    const auto row = explained.position >= 0 ? result.logits[0][explained.position] : result.logits[0];
    explained.target = row.argmax().item<int64_t>();
  }
  const auto logit = target_logits(result, explained).sum();
  std::vector<torch::Tensor> inputs;
  for (const auto& layer : tiles)
    for (const auto& [first, tile] : layer) inputs.push_back(tile);
  const auto grads = torch::autograd::grad({logit}, inputs, {}, /*retain_graph=*/false, /*create_graph=*/false,
                                           /*allow_unused=*/true);
  PatternGradients read;
  size_t next = 0;
  for (const auto& layer : tiles) {
    std::map<int64_t, torch::Tensor> values, layer_grads;
    for (const auto& [first, tile] : layer) {
      values[first] = tile.detach();
      const auto& grad = grads[next++];
      layer_grads[first] = grad.defined() ? grad : torch::zeros_like(tile);
    }
    read.patterns.push_back(joined(values).to(torch::kCPU, torch::kFloat64));
    read.gradients.push_back(joined(layer_grads).to(torch::kCPU, torch::kFloat64));
  }
  read.target = explained.target;
  read.logit = logit.item<double>();
  read.probability = target_probabilities(result, explained).item<double>();
  return read;
}

TokenAttribution attribute_tokens(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                  bool with_flow, const ForwardOptions& options) {
  const auto read = pattern_gradients(model, input, output, options);
  const auto& patterns = read.patterns;
  TokenAttribution attribution;
  attribution.readout = output_readout(model.config(), output, input);
  attribution.target = read.target;
  attribution.logit = read.logit;
  attribution.probability = read.probability;
  attribution.scores.resize(attribution_method_names().size());
  if (model.config().is_translation()) {
    const auto& config = model.config();
    const auto t = output.position;
    attribution.scores[static_cast<int>(AttributionMethod::Attention)] = translation_attention(config, patterns, t);
    attribution.scores[static_cast<int>(AttributionMethod::Rollout)] = translation_rollout(config, patterns, t);
    if (with_flow) attribution.scores[static_cast<int>(AttributionMethod::Flow)] = translation_flow(config, patterns, t);
    attribution.scores[static_cast<int>(AttributionMethod::Gradient)] =
        translation_gradient_rollout(config, patterns, read.gradients, t);
    return attribution;
  }
  const auto row = attribution.readout.unsqueeze(0);
  attribution.scores[static_cast<int>(AttributionMethod::Attention)] =
      torch::matmul(row, patterns.back().mean(0)).squeeze(0);
  attribution.scores[static_cast<int>(AttributionMethod::Rollout)] = attention_rollout(patterns, attribution.readout);
  if (with_flow) attribution.scores[static_cast<int>(AttributionMethod::Flow)] = attention_flow(patterns, attribution.readout);
  attribution.scores[static_cast<int>(AttributionMethod::Gradient)] =
      gradient_rollout(patterns, read.gradients, attribution.readout);
  return attribution;
}

std::vector<double> masked_probabilities(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                                         const torch::Tensor& masks, const ForwardOptions& options) {
  c10::InferenceMode inference;
  model.module().eval();
  const auto rows = masks.size(0);
  // Every sequence repeated (a translation model's target too); the masks replace the input's.
  auto batch = input.map([rows](const torch::Tensor& t) { return t.expand({rows, -1}).contiguous(); });
  batch.attention_mask = masks.to(torch::kLong);
  const auto probabilities = target_probabilities(model.forward(batch, options), output).to(torch::kCPU).contiguous();
  const auto* data = probabilities.data_ptr<double>();
  return std::vector<double>(data, data + rows);
}

}  // namespace aw
