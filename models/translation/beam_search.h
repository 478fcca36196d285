// models/translation/beam_search.h — batched greedy and beam-search decoding of a translation model.
// Every source row is decoded at once (rows × beams decoder rows per step), with the head gates of
// its row, so many gate settings of one sentence decode together. The encoder runs once per call.
// Scores follow Hugging Face's generate(): a hypothesis ending in EOS scores
// Σ log p / (generated tokens, EOS included)^length_penalty, the best `beam` finished hypotheses are
// kept per row, and at the length limit the running beams are scored the same way.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"

#include <cstdint>
#include <vector>

namespace aw {

struct SearchSettings {
  int64_t beam = 1;              // 1 = greedy
  double length_penalty = 1.0;
  int64_t max_new_tokens = 0;    // 0 = 2 × source length + 10, within the model's positions
};

struct Hypothesis {
  std::vector<int64_t> ids;      // generated ids after the decoder start, EOS excluded
  double score = 0.0;            // the length-penalised log-probability (greedy: Σ log p)
  bool finished = false;         // ended in EOS (false: stopped at the length limit)
};

// source: input_ids [R, n] (+ attention_mask) of the rows to translate; options.head_gates [R, blocks,
// H_max] (one setting per row), [blocks, H_max] or undefined; options.diagonal applies to the decoder.
// Throws aw::Error for bad settings (beam < 1, negative max_new_tokens).
std::vector<Hypothesis> translate_rows(SequenceToSequenceModel& model, const ModelInput& source,
                                       const SearchSettings& settings, const ForwardOptions& options = {});

}  // namespace aw
