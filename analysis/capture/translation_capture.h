// analysis/capture/translation_capture.h — one sentence through a translation model for people to look at:
// the translation (greedy or beam search, under the given head gates), then one teacher-forced
// forward over the translation that captures every attention block — encoder self [H, n, n],
// decoder self [H, m, m] and cross [H, m, n] — with the source and target token labels. The CLI's
// `translate` and the GUI's translation view both show it.
#pragma once

#include "models/nn/model.h"
#include "models/translation/beam_search.h"
#include "models/translation/translation_codec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aw {

struct TranslationCapture {
  std::string source;                       // the text as given
  std::vector<int64_t> source_ids;          // tokens + EOS
  std::vector<std::string> source_tokens;
  Hypothesis hypothesis;                    // the generated ids (EOS excluded) and score
  std::string translation;                  // its text
  std::vector<int64_t> decoder_ids;         // start + generated ids: the decoder's rows in the capture
  std::vector<std::string> decoder_tokens;
  std::vector<torch::Tensor> attention;     // per block [H, rows, cols] (float, CPU)
  torch::Tensor logits;                     // [m, V] (float, CPU): row t scores the token after decoder token t
  // A given target read teacher-forced (capture_translation_of): `translation` is that target, the
  // hypothesis its ids, its score the target's log-probability (EOS included).
  bool teacher_forced = false;
};

// Throws aw::Error for an empty source or one longer than the model's positions.
TranslationCapture translate_and_capture(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                         const std::string& source, const SearchSettings& settings,
                                         const torch::Tensor& head_gates = {});

// The same for a given target instead of a search (teacher forcing, as training reads a reference):
// the decoder reads start + the target's tokens, so every attention block shows where the model looks
// while it produces that target. Throws aw::Error for an empty source or target, or one longer than
// the model's positions.
TranslationCapture capture_translation_of(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                          const std::string& source, const std::string& target,
                                          const torch::Tensor& head_gates = {});

// {"source", "translation", "score", "finished", "teacher_forced", "source_tokens", "target_tokens",
// "blocks": [{"kind", "layer", "attention": [H][rows][cols]}]}; rows are target tokens for dec and
// cross, cols source tokens for enc and cross.
nlohmann::json translation_json(const TranslationCapture& capture, const ModelConfig& config);

}  // namespace aw
