// analysis/logit_lens/logit_lens.cpp — see logit_lens.h.
#include "analysis/logit_lens/logit_lens.h"

#include "models/errors.h"

#include <torch/torch.h>

namespace aw {
namespace {

void check_settings(const ModelConfig& config, const std::vector<int64_t>& ids, const LogitLensSettings& settings) {
  if (!config.is_language_model())
    throw Error("the logit lens needs a language model; this is a " + config.family_name() + " model");
  if (ids.empty()) throw Error("the logit lens needs a text of at least one token");
  const auto n = static_cast<int64_t>(ids.size());
  if (settings.positions.empty()) throw Error("the logit lens needs at least one position");
  for (const auto position : settings.positions)
    if (position < 0 || position >= n)
      throw Error("position " + std::to_string(position) + " is outside the text's " + std::to_string(n) +
                  " tokens (0 to " + std::to_string(n - 1) + ")");
  if (settings.k < 1 || settings.k > config.vocab_size)
    throw Error("k " + std::to_string(settings.k) + " is outside 1 to the vocabulary's " +
                std::to_string(config.vocab_size));
  if (settings.target >= config.vocab_size)
    throw Error("target token " + std::to_string(settings.target) + " is outside the vocabulary's " +
                std::to_string(config.vocab_size));
}

}  // namespace

LogitLensResult logit_lens(AttentionModel& model, const std::vector<int64_t>& ids, const LogitLensSettings& settings,
                           const ForwardOptions& forward, const ProgressCallback& progress) {
  const auto& config = model.config();
  check_settings(config, ids, settings);
  c10::InferenceMode inference;
  model.module().eval();
  const auto device = model.module().parameters().front().device();
  const auto n = static_cast<int64_t>(ids.size());
  const auto layers = config.n_blocks;
  const auto positions = static_cast<int64_t>(settings.positions.size());
  const auto total = 2 * layers + 1;
  LogitLensResult result;

  ModelInput input;
  input.input_ids = torch::tensor(ids, torch::kLong).unsqueeze(0).to(device);  // (1, n)
  const auto at = torch::tensor(settings.positions, torch::kLong).to(device);
  // The chosen positions' state entering each layer and after the last: (L + 1) × (1, P, d).
  std::vector<torch::Tensor> states;
  auto hidden = model.embed(input);
  states.push_back(hidden.index_select(1, at));
  for (int64_t layer = 0; layer < layers; ++layer) {
    hidden = model.run_layers(hidden, input, layer, layer + 1, forward).hidden;
    states.push_back(hidden.index_select(1, at));
    if (!report_progress(progress, layer + 1, total)) return result.cancelled = true, result;
  }
  hidden = torch::Tensor();

  // The token each position is scored against (−1: the text's last position, without a target).
  std::vector<int64_t> scored(positions, -1);
  for (int64_t p = 0; p < positions; ++p) {
    const auto position = settings.positions[p];
    scored[p] = settings.target >= 0 ? settings.target : position + 1 < n ? ids[position + 1] : -1;
  }
  const auto scored_ids = torch::tensor(scored, torch::kLong).clamp_min(0).to(device).unsqueeze(1);  // (P, 1)

  // The model's own distribution (the last state is the forward's own), then each layer against it.
  // Per layer one log-softmax of vocabulary size beside the logits: the top tokens, the scored token's
  // probability and, as a dot product per position, KL(final ‖ layer) = Σ p_f log p_f − Σ p_f log p.
  const auto final_logits = model.output(states.back(), input).squeeze(0).to(torch::kFloat32);      // (P, V)
  const auto log_final = torch::log_softmax(final_logits, -1);
  const auto final_probabilities = log_final.exp();                                                 // (P, V)
  const auto cross = [&](const torch::Tensor& log_probabilities) {                                  // Σ p_f log p
    return torch::bmm(final_probabilities.unsqueeze(1), log_probabilities.unsqueeze(2)).view({-1});
  };
  const auto final_cross = cross(log_final);
  for (int64_t layer = 0; layer <= layers; ++layer) {
    const bool last = layer == layers;  // the model's own output, made once
    const auto logits = last ? final_logits : model.output(states[layer], input).squeeze(0).to(torch::kFloat32);
    const auto log_probabilities = last ? log_final : torch::log_softmax(logits, -1);
    const auto kl = (final_cross - cross(log_probabilities)).clamp_min(0).to(torch::kCPU, torch::kFloat64);
    const auto top = log_probabilities.topk(settings.k, -1);
    const auto top_ids = std::get<1>(top).to(torch::kCPU).contiguous();
    const auto top_probabilities = std::get<0>(top).exp().to(torch::kCPU, torch::kFloat64).contiguous();
    const auto scored_logit = logits.gather(1, scored_ids);                                          // (P, 1)
    // Counted in int32: summing the comparison as int64 took longer than the comparison itself.
    const auto ranks = (logits > scored_logit).sum(-1, false, torch::kInt).add(1).to(torch::kCPU, torch::kLong);
    const auto scored_probabilities = log_probabilities.gather(1, scored_ids).squeeze(1).exp().to(torch::kCPU, torch::kFloat64);
    const auto kl_values = kl.accessor<double, 1>();
    const auto rank_values = ranks.accessor<int64_t, 1>();
    const auto probability_values = scored_probabilities.accessor<double, 1>();
    const auto id_values = top_ids.accessor<int64_t, 2>();
    const auto top_values = top_probabilities.accessor<double, 2>();
    for (int64_t p = 0; p < positions; ++p) {
      LogitLensCell cell;
      cell.layer = layer;
      cell.position = settings.positions[p];
      cell.kl = layer == layers ? 0.0 : kl_values[p];  // the model's own output: exactly none
      if (scored[p] >= 0) {
        cell.scored = scored[p];
        cell.rank = rank_values[p];
        cell.probability = probability_values[p];
      }
      for (int64_t rank = 0; rank < settings.k; ++rank) {
        cell.top.push_back(id_values[p][rank]);
        cell.top_probability.push_back(top_values[p][rank]);
      }
      result.cells.push_back(std::move(cell));
    }
    if (!report_progress(progress, layers + 1 + layer, total)) return result.cancelled = true, result;
  }
  return result;
}

}  // namespace aw
