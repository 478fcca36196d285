// analysis/retrieval/retrieval_heads.h — the retrieval score of every head (Wu et al. 2024, §2): over
// the needle tokens a model copies correctly, the share for which the head's highest-weight key is
// that token's position in the needle. The copy is teacher-forced: one forward per case reads the
// model's greedy prediction at every position of the needle's second copy, and a token counts as
// copied while every prediction since the cue was right — what greedy decoding would have produced up
// to its first wrong token (the tokens after it, which decoding would continue from a wrong prefix,
// are not scored). Attention is read tile by tile (models/nn/attention.h): no n × n matrix is held.
#pragma once

#include "analysis/retrieval/needle_cases.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace aw {

struct RetrievalResult {
  std::vector<int64_t> heads_per_layer;
  std::vector<int64_t> lengths;  // the groups' (length, depth), length-major
  std::vector<double> depths;
  torch::Tensor hits;    // [G, L, H_max] float64: copied tokens whose top key was the needle's token
  torch::Tensor looked;  // [G, L, H_max] float64: scored rows (copied or not) whose top key was it
  torch::Tensor copied;  // [G] float64: needle tokens copied correctly
  torch::Tensor asked;   // [G] float64: needle tokens after the cue
  bool cancelled = false;
};

// Every case through `model` under `forward`'s gates, `batch` cases of one length per forward.
RetrievalResult retrieval_heads(AttentionModel& model, const std::vector<NeedleCase>& cases,
                                const NeedleSettings& settings, int64_t batch, const ForwardOptions& forward,
                                const ProgressCallback& progress = {});

}  // namespace aw
