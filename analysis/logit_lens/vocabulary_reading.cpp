// analysis/logit_lens/vocabulary_reading.cpp — see vocabulary_reading.h.
#include "analysis/logit_lens/vocabulary_reading.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

// A slice of about this many bytes of float32 logits stays in cache through its passes (measured on the
// GPT-2-small layout at 1,024 positions: slices of 2,048 tokens beat 1,024 and 4,096).
constexpr int64_t kSliceBytes = int64_t{8} << 20;

// On the CPU, each row of a float32 slice walked once for its best k (kept sorted, best first, in
// `top_values`/`top_ids` across slices: a value enters only above the k-th so far, so after the first
// slices almost none does) and once for how many of its values exceed the row's `threshold`, a loop the
// compiler vectorises. LibTorch's topk sorts more than k needs and its compare-and-count writes a bool
// tensor: together 3–4× the slice's own logsumexp (GPT-2 small, 1,024 positions).
void walk_rows(const torch::Tensor& slice, int64_t first, const torch::Tensor& threshold, torch::Tensor& top_values,
               torch::Tensor& top_ids, torch::Tensor& above) {
  const int64_t rows = slice.size(0), count = slice.size(1), k = top_values.size(1);
  const float* values = slice.data_ptr<float>();
  const float* thresholds = threshold.data_ptr<float>();
  float* best = top_values.data_ptr<float>();
  int64_t* best_ids = top_ids.data_ptr<int64_t>();
  int32_t* counts = above.data_ptr<int32_t>();
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float* x = values + row * count;
      const float limit = thresholds[row];
      int32_t larger = 0;
      for (int64_t j = 0; j < count; ++j) larger += x[j] > limit ? 1 : 0;
      counts[row] += larger;
      float* kept = best + row * k;
      int64_t* kept_ids = best_ids + row * k;
      for (int64_t j = 0; j < count; ++j) {
        if (!(x[j] > kept[k - 1])) continue;
        int64_t at = k - 1;  // insert, moving the smaller ones down
        while (at > 0 && x[j] > kept[at - 1]) {
          kept[at] = kept[at - 1];
          kept_ids[at] = kept_ids[at - 1];
          --at;
        }
        kept[at] = x[j];
        kept_ids[at] = first + j;
      }
    }
  });
}

// The same with LibTorch's ops (another device, another dtype).
void merge_slice(const torch::Tensor& slice, int64_t first, const torch::Tensor& threshold, torch::Tensor& top_values,
                 torch::Tensor& top_ids, torch::Tensor& above) {
  auto [values, ids] = slice.topk(std::min(top_values.size(1), slice.size(1)), 1);
  values = torch::cat({top_values, values}, 1);
  ids = torch::cat({top_ids, ids + first}, 1);
  const auto merged = values.topk(top_values.size(1), 1);
  top_values = std::get<0>(merged);
  top_ids = ids.gather(1, std::get<1>(merged));
  above += (slice > threshold.unsqueeze(1)).sum(1, false, torch::kInt);
}

}  // namespace

VocabularyReading read_vocabulary(const AttentionModel::VocabularyLogits& logits, const torch::Tensor& scored,
                                  int64_t k, const torch::Tensor& weights) {
  VocabularyReading reading;
  reading.scored = logits.own(scored).contiguous();                                             // (P)
  const int64_t positions = reading.scored.size(0), vocabulary = logits.vocabulary;
  const int64_t columns = std::max<int64_t>(k, kSliceBytes / (4 * std::max<int64_t>(1, positions)));
  const auto options = reading.scored.options();
  reading.log_sum = torch::full({positions}, -INFINITY, options);
  reading.above = torch::zeros({positions}, options.dtype(torch::kInt));
  reading.top_logits = torch::full({positions, k}, -INFINITY, options);
  reading.top_ids = torch::zeros({positions, k}, options.dtype(torch::kLong));
  if (weights.defined()) reading.expected = torch::zeros({positions}, options);
  for (int64_t first = 0; first < vocabulary; first += columns) {
    const int64_t count = std::min(columns, vocabulary - first);
    const auto slice = logits.slice(first, count).contiguous();                                // (P, count)
    reading.log_sum = torch::logaddexp(reading.log_sum, torch::logsumexp(slice, 1));
    if (slice.is_cpu() && slice.scalar_type() == torch::kFloat32)
      walk_rows(slice, first, reading.scored, reading.top_logits, reading.top_ids, reading.above);
    else
      merge_slice(slice, first, reading.scored, reading.top_logits, reading.top_ids, reading.above);
    // The scored token is not above itself, though its slice may have rounded it above its own logit.
    const auto local = scored - first;
    const auto inside = local.ge(0).logical_and(local.lt(count));
    const auto itself = slice.gather(1, local.clamp(0, count - 1).unsqueeze(1)).squeeze(1);
    reading.above -= inside.logical_and(itself > reading.scored).to(torch::kInt);
    if (weights.defined()) reading.expected += (weights.narrow(1, first, count) * slice).sum(1);
  }
  return reading;
}

AttentionModel::VocabularyLogits whole_logits(const torch::Tensor& logits) {
  AttentionModel::VocabularyLogits whole;
  whole.vocabulary = logits.size(1);
  whole.slice = [logits](int64_t first, int64_t count) { return logits.narrow(1, first, count); };
  whole.own = [logits](const torch::Tensor& tokens) { return logits.gather(1, tokens.unsqueeze(1)).squeeze(1); };
  return whole;
}

}  // namespace aw
