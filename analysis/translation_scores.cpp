// analysis/translation_scores.cpp — see translation_scores.h.
#include "analysis/translation_scores.h"

#include "models/errors.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {

TranslationScores score_translations(TranslationTransformerImpl& model, const TranslationCodec& codec,
                                     const std::vector<TranslationPair>& pairs, const SearchSettings& search,
                                     int64_t batch, const ForwardOptions& options, const ProgressCallback& progress) {
  const auto& config = model.config();
  const auto device = model.parameters().front().device();
  TranslationScores scores;
  std::vector<std::vector<int64_t>> sources;
  std::vector<std::string> references;
  for (const auto& pair : pairs) {
    auto ids = codec.source_ids(pair.source);
    if (static_cast<int64_t>(ids.size()) > config.max_positions) {
      ++scores.skipped;
      continue;
    }
    sources.push_back(std::move(ids));
    references.push_back(pair.target);
  }
  if (sources.empty()) throw Error("no source fits the model's " + std::to_string(config.max_positions) + " positions");

  c10::InferenceMode inference;
  const auto count = static_cast<int64_t>(sources.size());
  for (int64_t first = 0; first < count; first += batch) {
    const auto rows = std::min(batch, count - first);
    const auto padded = pad_id_rows({sources.begin() + first, sources.begin() + first + rows}, config.translation.pad_id);
    ModelInput input;
    input.input_ids = padded.ids.to(device);
    input.attention_mask = padded.mask.to(device);
    for (const auto& hypothesis : translate_rows(model, input, search, options))
      scores.hypotheses.push_back(codec.text(hypothesis.ids));
    if (!report_progress(progress, first + rows, count)) {
      scores.cancelled = true;
      return scores;
    }
  }
  scores.bleu = corpus_bleu(scores.hypotheses, references);
  scores.chrf = corpus_chrf(scores.hypotheses, references);
  return scores;
}

}  // namespace aw
