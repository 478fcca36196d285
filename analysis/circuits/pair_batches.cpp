// analysis/circuits/pair_batches.cpp — see pair_batches.h.
#include "analysis/circuits/pair_batches.h"

#include <torch/torch.h>

#include <algorithm>
#include <map>

namespace aw {

ModelInput repeated(const ModelInput& input, int64_t times) {
  ModelInput out;
  out.input_ids = input.input_ids.repeat({times, 1});
  if (input.decoder_input_ids.defined()) out.decoder_input_ids = input.decoder_input_ids.repeat({times, 1});
  return out;
}

torch::Tensor pair_metric(const torch::Tensor& last_logits, const PairBatch& batch) {
  const auto times = last_logits.size(0) / batch.answer.size(0);
  const auto answer = batch.answer.repeat({times}).to(last_logits.device()).unsqueeze(1);
  const auto foil = batch.foil.repeat({times}).to(last_logits.device()).unsqueeze(1);
  const auto logits = last_logits.to(torch::kFloat64);
  return (logits.gather(1, answer) - logits.gather(1, foil)).squeeze(1).to(torch::kCPU);
}

torch::Tensor last_logits(AttentionModel& model, const torch::Tensor& states, const PairBatch& batch) {
  const auto rows = states.size(0);
  ModelInput last = repeated(batch.corrupted, rows / batch.corrupted.input_ids.size(0));
  if (last.decoder_input_ids.defined()) last.decoder_input_ids = last.decoder_input_ids.narrow(1, batch.length - 1, 1);
  else last.input_ids = last.input_ids.narrow(1, batch.length - 1, 1);
  return model.output(states.narrow(1, states.size(1) - 1, 1), last).select(1, 0);  // [rows, V]
}

std::vector<std::vector<int64_t>> batches_by_length(const std::vector<PatchPair>& pairs, int64_t batch) {
  std::map<std::pair<size_t, size_t>, std::vector<int64_t>> by_length;  // (prompt, a translation's target)
  for (size_t i = 0; i < pairs.size(); ++i)
    by_length[{pairs[i].clean.size(), pairs[i].target.size()}].push_back(static_cast<int64_t>(i));
  std::vector<std::vector<int64_t>> batches;
  for (const auto& [length, indices] : by_length)
    for (size_t first = 0; first < indices.size(); first += static_cast<size_t>(batch))
      batches.emplace_back(indices.begin() + static_cast<std::ptrdiff_t>(first),
                           indices.begin() + static_cast<std::ptrdiff_t>(std::min(indices.size(), first + static_cast<size_t>(batch))));
  return batches;
}

PairBatch make_batch(const std::vector<PatchPair>& pairs, const std::vector<int64_t>& indices, const torch::Device& device) {
  PairBatch batch;
  batch.pairs = indices;
  std::vector<torch::Tensor> clean, corrupted, target;
  std::vector<int64_t> answer, foil;
  for (const auto i : indices) {
    clean.push_back(torch::tensor(pairs[i].clean, torch::kLong));
    corrupted.push_back(torch::tensor(pairs[i].corrupted, torch::kLong));
    if (!pairs[i].target.empty()) target.push_back(torch::tensor(pairs[i].target, torch::kLong));
    answer.push_back(pairs[i].answer);
    foil.push_back(pairs[i].foil);
  }
  batch.clean.input_ids = torch::stack(clean).to(device);
  batch.corrupted.input_ids = torch::stack(corrupted).to(device);
  batch.answer = torch::tensor(answer, torch::kLong);
  batch.foil = torch::tensor(foil, torch::kLong);
  batch.length = batch.clean.input_ids.size(1);
  if (!target.empty()) {  // a translation model: both runs read the same target; its last position is explained
    batch.clean.decoder_input_ids = torch::stack(target).to(device);
    batch.corrupted.decoder_input_ids = batch.clean.decoder_input_ids;
    batch.length = batch.clean.decoder_input_ids.size(1);
  }
  return batch;
}

}  // namespace aw
