// analysis/translation_scores.h — a translation model's corpus BLEU and chrF on source<TAB>reference
// pairs: every source translated (batched greedy or beam search, models/translation/beam_search.h,
// under the given head gates), then scored against its reference as sacreBLEU scores (13a, one
// reference; models/text/bleu.h). `eval` reports it next to the teacher-forced perplexity.
#pragma once

#include "models/nn/translation.h"
#include "models/progress.h"
#include "models/text/bleu.h"
#include "models/translation/beam_search.h"
#include "models/translation/translation_codec.h"
#include "models/translation/translation_data.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct TranslationScores {
  BleuScore bleu;
  double chrf = 0.0;
  std::vector<std::string> hypotheses;  // per scored pair, in order
  int64_t skipped = 0;                  // sources longer than the model's positions (left out)
  bool cancelled = false;
};

// `batch` sources decode together; progress counts sources done. Sources longer than the model's
// positions are left out (counted) rather than cut. Throws aw::Error when no pair is left.
TranslationScores score_translations(TranslationTransformerImpl& model, const TranslationCodec& codec,
                                     const std::vector<TranslationPair>& pairs, const SearchSettings& search,
                                     int64_t batch, const ForwardOptions& options = {},
                                     const ProgressCallback& progress = {});

}  // namespace aw
