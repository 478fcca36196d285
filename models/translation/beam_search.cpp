// models/translation/beam_search.cpp — see beam_search.h.
#include "models/translation/beam_search.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace aw {
namespace {

// The finished hypotheses of one row: at most `capacity`, the best first once sorted.
struct FinishedList {
  std::vector<Hypothesis> hypotheses;
  double worst() const {
    double worst = std::numeric_limits<double>::infinity();
    for (const auto& h : hypotheses) worst = std::min(worst, h.score);
    return worst;
  }
  void add(Hypothesis hypothesis, size_t capacity) {
    if (hypotheses.size() >= capacity && hypothesis.score <= worst()) return;
    hypotheses.push_back(std::move(hypothesis));
    if (hypotheses.size() > capacity) {
      auto worst_one = std::min_element(hypotheses.begin(), hypotheses.end(),
                                        [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
      hypotheses.erase(worst_one);
    }
  }
};

double penalised(double log_probability, int64_t length, double length_penalty) {
  return log_probability / std::pow(static_cast<double>(std::max<int64_t>(length, 1)), length_penalty);
}

}  // namespace

std::vector<Hypothesis> translate_rows(SequenceToSequenceModel& model, const ModelInput& source,
                                       const SearchSettings& settings, const ForwardOptions& options) {
  if (settings.beam < 1) throw Error("--beam must be at least 1, got " + std::to_string(settings.beam));
  if (settings.max_new_tokens < 0) throw Error("--max-length must be ≥ 0");
  const auto& config = model.config();
  const auto& part = config.translation;
  c10::InferenceMode inference;
  model.module().eval();
  const auto device = model.module().parameters().front().device();
  const int64_t rows = source.input_ids.size(0), beams = settings.beam;
  const int64_t source_length = source.input_ids.size(1);
  int64_t limit = settings.max_new_tokens > 0 ? settings.max_new_tokens : 2 * source_length + 10;
  limit = std::min(limit, config.max_positions - 1);

  // Encoder once per row, with the row's encoder gates; then every row's beams side by side.
  ForwardOptions encoder_options;
  encoder_options.head_gates = options.head_gates;
  const auto input = source.to(device);
  const auto memory = model.encode(input, encoder_options).hidden;                        // (R, n, d)
  auto expand = [&](const torch::Tensor& t) { return t.repeat_interleave(beams, 0); };   // row-major beams
  ModelInput step_input;
  const auto beam_memory = expand(memory);                                                // (R·K, n, d)
  if (input.attention_mask.defined()) step_input.attention_mask = expand(input.attention_mask);
  step_input.input_ids = expand(input.input_ids);
  ForwardOptions decoder_options;
  decoder_options.diagonal = options.diagonal;
  if (options.head_gates.defined())
    decoder_options.head_gates = options.head_gates.dim() == 3 ? expand(options.head_gates.to(device)) : options.head_gates;

  auto sequences = torch::full({rows * beams, 1}, part.decoder_start_id, torch::dtype(torch::kLong).device(device));
  // Only the first beam of each row is live at the start, so the first step does not pick K copies.
  auto beam_scores = torch::zeros({rows, beams}, torch::dtype(torch::kFloat64).device(device));
  if (beams > 1) beam_scores.narrow(1, 1, beams - 1).fill_(-1e9);
  beam_scores = beam_scores.view({-1});
  std::vector<FinishedList> finished(rows);
  std::vector<bool> done(rows, false);
  const auto vocabulary = part.target_vocab_size;

  for (int64_t step = 1; step <= limit; ++step) {
    step_input.decoder_input_ids = sequences;
    const auto logits = model.decode(beam_memory, step_input, decoder_options).logits.select(1, -1);  // (R·K, V)
    const auto log_probs = torch::log_softmax(logits.to(torch::kFloat64), -1);
    if (beams == 1) {
      // Greedy: the most likely token; finished rows keep reading padding.
      auto [best, token] = log_probs.max(-1);
      auto host_tokens = token.cpu();
      auto host_best = best.cpu();
      const auto tokens = host_tokens.accessor<int64_t, 1>();
      const auto values = host_best.accessor<double, 1>();
      for (int64_t row = 0; row < rows; ++row) {
        if (done[row]) {
          host_tokens[row] = part.pad_id;
          continue;
        }
        beam_scores[row] += values[row];
        if (tokens[row] == part.eos_id) done[row] = true;
      }
      sequences = torch::cat({sequences, host_tokens.to(device).unsqueeze(1)}, 1);
    } else {
      const auto candidates = (log_probs + beam_scores.unsqueeze(1)).view({rows, beams * vocabulary});
      const auto [top_scores, top_indices] = candidates.topk(2 * beams, 1);               // (R, 2K)
      const auto host_scores = top_scores.cpu();
      const auto host_indices = top_indices.cpu();
      const auto scores = host_scores.accessor<double, 2>();
      const auto indices = host_indices.accessor<int64_t, 2>();
      const auto host_sequences = sequences.cpu();
      std::vector<int64_t> next_beam(rows * beams), next_token(rows * beams);
      std::vector<double> next_score(rows * beams);
      for (int64_t row = 0; row < rows; ++row) {
        int64_t kept = 0;
        for (int64_t rank = 0; rank < 2 * beams && kept < beams; ++rank) {
          const int64_t beam = indices[row][rank] / vocabulary, token = indices[row][rank] % vocabulary;
          const int64_t from = row * beams + beam;
          if (done[row]) {  // a finished row keeps decoding padding; its beams no longer matter
            next_beam[row * beams + kept] = from;
            next_token[row * beams + kept] = part.pad_id;
            next_score[row * beams + kept] = 0.0;
            ++kept;
            continue;
          }
          if (token == part.eos_id) {
            if (rank >= beams) continue;  // an EOS outside the top K does not finish a hypothesis
            Hypothesis hypothesis;
            const auto prefix = host_sequences[from];
            hypothesis.ids.assign(prefix.data_ptr<int64_t>() + 1, prefix.data_ptr<int64_t>() + prefix.size(0));
            hypothesis.score = penalised(scores[row][rank], step, settings.length_penalty);
            hypothesis.finished = true;
            finished[row].add(std::move(hypothesis), static_cast<size_t>(beams));
            continue;
          }
          if (step == limit) {  // the length limit stops a candidate as EOS does, top K only
            if (rank >= beams) continue;
            Hypothesis hypothesis;
            const auto prefix = host_sequences[from];
            hypothesis.ids.assign(prefix.data_ptr<int64_t>() + 1, prefix.data_ptr<int64_t>() + prefix.size(0));
            hypothesis.ids.push_back(token);
            hypothesis.score = penalised(scores[row][rank], step, settings.length_penalty);
            finished[row].add(std::move(hypothesis), static_cast<size_t>(beams));
            continue;
          }
          next_beam[row * beams + kept] = from;
          next_token[row * beams + kept] = token;
          next_score[row * beams + kept] = scores[row][rank];
          ++kept;
        }
        if (step == limit) {
          done[row] = true;
          for (; kept < beams; ++kept) {  // nothing runs on; the rows only keep their shape
            next_beam[row * beams + kept] = row * beams;
            next_token[row * beams + kept] = part.pad_id;
            next_score[row * beams + kept] = 0.0;
          }
          continue;
        }
        // Done once K hypotheses are finished and the best running beam, scored at its present
        // length, does not beat the worst of them (generate()'s rule with early_stopping=False).
        if (!done[row] && static_cast<int64_t>(finished[row].hypotheses.size()) >= beams)
          done[row] = penalised(next_score[row * beams], step, settings.length_penalty) <= finished[row].worst();
      }
      const auto from = torch::tensor(next_beam, torch::kLong).to(device);
      sequences = torch::cat({sequences.index_select(0, from), torch::tensor(next_token, torch::kLong).to(device).unsqueeze(1)}, 1);
      beam_scores = torch::tensor(next_score, torch::kFloat64).to(device);
    }
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
  }

  // Rows that reached the limit: their running beams join the finished ones, scored alike.
  const auto host_sequences = sequences.cpu();
  const auto host_scores = beam_scores.cpu();
  std::vector<Hypothesis> best(rows);
  for (int64_t row = 0; row < rows; ++row) {
    if (beams == 1) {
      Hypothesis hypothesis;
      const auto sequence = host_sequences[row];
      for (int64_t i = 1; i < sequence.size(0); ++i) {
        const auto id = sequence[i].item<int64_t>();
        if (id == part.eos_id) {
          hypothesis.finished = true;
          break;
        }
        hypothesis.ids.push_back(id);
      }
      hypothesis.score = host_scores[row].item<double>();
      best[row] = std::move(hypothesis);
      continue;
    }
    if (!done[row])
      for (int64_t beam = 0; beam < beams; ++beam) {
        Hypothesis hypothesis;
        const auto sequence = host_sequences[row * beams + beam];
        hypothesis.ids.assign(sequence.data_ptr<int64_t>() + 1, sequence.data_ptr<int64_t>() + sequence.size(0));
        hypothesis.score = penalised(host_scores[row * beams + beam].item<double>(), sequence.size(0) - 1,
                                     settings.length_penalty);
        finished[row].add(std::move(hypothesis), static_cast<size_t>(beams));
      }
    const auto& list = finished[row].hypotheses;
    best[row] = *std::max_element(list.begin(), list.end(),
                                  [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
  }
  return best;
}

}  // namespace aw
