// analysis/logit_lens/logit_lens.cpp — see logit_lens.h.
#include "analysis/logit_lens/logit_lens.h"

#include "analysis/logit_lens/vocabulary_reading.h"
#include "models/errors.h"
#include "models/nn/attention.h"  // resolved_memory_budget

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

// Each head's write at the chosen positions through the final norm (scaled by the model's last state
// there, `residual` (P, d)) and the unembedding: `contexts` (P, H, dh) of one layer, read in tiles of
// positions whose (rows, H, V) logits fit `budget` bytes. Cells appended head-major, then position.
void read_heads(AttentionModel& model, int64_t layer, const torch::Tensor& contexts, const torch::Tensor& residual,
                const std::vector<int64_t>& scored, const LogitLensSettings& settings, int64_t budget,
                std::vector<LogitLensHeadCell>& cells) {
  const auto writes = model.head_writes(layer, contexts);                                         // (P, H, d)
  const int64_t positions = writes.size(0), heads = writes.size(1), vocabulary = model.config().vocab_size;
  const int64_t tile = std::max<int64_t>(1, budget / std::max<int64_t>(1, heads * vocabulary * 8));
  const auto first_cell = cells.size();
  cells.resize(first_cell + static_cast<size_t>(heads * positions));
  const auto scored_ids = torch::tensor(scored, torch::kLong).clamp_min(0).to(writes.device());  // (P)
  for (int64_t first = 0; first < positions; first += tile) {
    const int64_t rows = std::min(tile, positions - first);
    const auto logits = model.direct_vocabulary_logits(residual.narrow(0, first, rows), writes.narrow(0, first, rows))
                            .to(torch::kFloat32);                                                 // (rows, H, V)
    const auto top = logits.topk(settings.k, -1);
    const auto top_ids = std::get<1>(top).to(torch::kCPU).contiguous();
    const auto top_logits = std::get<0>(top).to(torch::kCPU, torch::kFloat64).contiguous();
    const auto index = scored_ids.narrow(0, first, rows).view({rows, 1, 1}).expand({rows, heads, 1});
    const auto dla = logits.gather(2, index).squeeze(2).to(torch::kCPU, torch::kFloat64).contiguous();  // (rows, H)
    const auto ids = top_ids.accessor<int64_t, 3>();
    const auto values = top_logits.accessor<double, 3>();
    const auto dla_values = dla.accessor<double, 2>();
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t head = 0; head < heads; ++head) {
        auto& cell = cells[first_cell + static_cast<size_t>(head * positions + first + row)];
        const auto p = static_cast<size_t>(first + row);
        cell.layer = layer + 1;
        cell.head = head;
        cell.position = settings.positions[p];
        if (scored[p] >= 0) cell.scored = scored[p], cell.dla = dla_values[row][head];
        for (int64_t rank = 0; rank < settings.k; ++rank) {
          cell.top.push_back(ids[row][head][rank]);
          cell.top_logit.push_back(values[row][head][rank]);
        }
      }
  }
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
  // The chosen positions' state entering each layer and after the last: (L + 1) × (1, P, d); with
  // heads, each layer's contexts there (after the gates: a head switched off writes nothing).
  std::vector<torch::Tensor> states, contexts;
  auto options = forward;
  torch::Tensor z;
  if (settings.heads) {
    // The model's refusal, if any, before the forward runs.
    const auto probe = torch::TensorOptions().device(device);
    model.direct_vocabulary_logits(torch::ones({1, config.d_model}, probe), torch::zeros({1, 0, config.d_model}, probe));
    options.hooks.add(HookPoint::Z, -1, [&z, &at](const HookSite&, const torch::Tensor& value) {
      z = value.index_select(2, at).select(0, 0).transpose(0, 1).contiguous();                  // (P, H, dh)
      return torch::Tensor();
    });
  }
  auto hidden = model.embed(input);
  states.push_back(hidden.index_select(1, at));
  for (int64_t layer = 0; layer < layers; ++layer) {
    hidden = model.run_layers(hidden, input, layer, layer + 1, options).hidden;
    states.push_back(hidden.index_select(1, at));
    if (settings.heads) contexts.push_back(std::move(z));
    if (!report_progress(progress, layer + 1, total)) return result.cancelled = true, result;
  }
  hidden = torch::Tensor();

  // The token each position is scored against (−1: the text's last position, without a target).
  std::vector<int64_t> scored(positions, -1);
  for (int64_t p = 0; p < positions; ++p) {
    const auto position = settings.positions[p];
    scored[p] = settings.target >= 0 ? settings.target : position + 1 < n ? ids[position + 1] : -1;
  }
  const auto scored_ids = torch::tensor(scored, torch::kLong).clamp_min(0).to(device);          // (P)

  // The model's own distribution (the last state is the forward's own), then each layer against it:
  // the top tokens, the scored token's probability and rank, and KL(final ‖ layer) = Σ p_f log p_f −
  // Σ p_f log p, read a slice of the vocabulary at a time (vocabulary_reading.h).
  const auto final_logits = model.output(states.back(), input).squeeze(0).to(torch::kFloat32);      // (P, V)
  const auto log_final = torch::log_softmax(final_logits, -1);
  const auto final_probabilities = log_final.exp();                                                 // (P, V)
  const auto final_cross =
      torch::bmm(final_probabilities.unsqueeze(1), log_final.unsqueeze(2)).view({-1});            // Σ p_f log p_f
  // Where the logits are linear in the normed state, Σ p_f logits is one dot product per position
  // (the vocabulary's product made once here); elsewhere it is summed over each slice.
  const auto expected_logit = model.logit_expectation(final_probabilities);
  for (int64_t layer = 0; layer <= layers; ++layer) {
    const bool last = layer == layers;  // the model's own output, made once
    auto vocabulary = last ? whole_logits(final_logits) : model.vocabulary_logits(states[layer]);
    if (!vocabulary) vocabulary = whole_logits(model.output(states[layer], input).squeeze(0).to(torch::kFloat32));
    const auto reading =
        read_vocabulary(vocabulary, scored_ids, settings.k, last || expected_logit ? torch::Tensor() : final_probabilities);
    // Σ p_f log p = Σ p_f logits − logsumexp (the weights sum to 1).
    const auto layer_cross = last             ? final_cross
                             : expected_logit ? expected_logit(states[layer]) - reading.log_sum
                                              : reading.expected - reading.log_sum;
    const auto kl = (final_cross - layer_cross).clamp_min(0).to(torch::kCPU, torch::kFloat64);
    const auto top_ids = reading.top_ids.to(torch::kCPU).contiguous();
    const auto top_probabilities =
        (reading.top_logits - reading.log_sum.unsqueeze(1)).exp().to(torch::kCPU, torch::kFloat64).contiguous();
    const auto ranks = (reading.above + 1).to(torch::kCPU, torch::kLong);
    const auto scored_probabilities = (reading.scored - reading.log_sum).exp().to(torch::kCPU, torch::kFloat64);
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
    if (settings.heads && layer > 0)
      read_heads(model, layer - 1, contexts[layer - 1], states.back().select(0, 0), scored, settings,
                 resolved_memory_budget(forward), result.heads);
    if (!report_progress(progress, layers + 1 + layer, total)) return result.cancelled = true, result;
  }
  return result;
}

}  // namespace aw
