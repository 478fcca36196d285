// analysis/circuits/pair_batches.h — clean/corrupted pairs (analysis/patching/patch_pairs.h) in batches of
// one prompt length, and the metric the circuit analyses share: m = logit(answer) − logit(foil) at the
// prompt's last position, as in `patch`. Used by path patching and edge attribution.
#pragma once

#include "analysis/patching/patch_pairs.h"
#include "models/nn/model.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

struct PairBatch {
  ModelInput clean, corrupted;
  torch::Tensor answer, foil;  // [B] long
  std::vector<int64_t> pairs;  // the pairs' indices
  int64_t length = 0;          // of the predicted sequence: the prompts (a translation model: its target)
};

// The pairs' indices grouped by prompt length (and a translation's target length), at most `batch` to a group.
std::vector<std::vector<int64_t>> batches_by_length(const std::vector<PatchPair>& pairs, int64_t batch);
PairBatch make_batch(const std::vector<PatchPair>& pairs, const std::vector<int64_t>& indices, const torch::Device& device);

// `input` with its rows repeated `times` (setting-major).
ModelInput repeated(const ModelInput& input, int64_t times);

// m per row [rows] float64 on the CPU from the logits at the last position [rows, V], the batch's pairs
// repeated setting-major.
torch::Tensor pair_metric(const torch::Tensor& last_logits, const PairBatch& batch);

// The logits at the last position [rows, V] of final states [rows, n|1, d] (the prompts' last token
// beside them).
torch::Tensor last_logits(AttentionModel& model, const torch::Tensor& states, const PairBatch& batch);

}  // namespace aw
