// analysis/data/translation_scores.h — a translation model's corpus BLEU and chrF on source<TAB>reference
// pairs: every source translated (batched greedy or beam search, models/translation/beam_search.h,
// under the given head gates), then scored against its reference as sacreBLEU scores (13a, one
// reference; models/text/bleu.h). `eval` reports it next to the teacher-forced perplexity; ablate,
// prune and diag-sweep use it as their metric with --metric bleu, where many gate settings decode
// together: a chunk of sources goes through one batched search under every setting at once.
#pragma once

#include "models/nn/model.h"
#include "models/progress.h"
#include "models/text/bleu.h"
#include "models/translation/beam_search.h"
#include "models/translation/translation_codec.h"
#include "models/translation/translation_data.h"

#include <cstdint>
#include <memory>
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

// What a BLEU metric decodes and scores: the sources' ids (those longer than the model's positions
// left out and counted) with their references, the codec that turns hypotheses into text and the
// search settings.
struct BleuTask {
  std::vector<std::vector<int64_t>> sources;
  std::vector<std::string> references;
  std::shared_ptr<const TranslationCodec> codec;
  SearchSettings search;
  int64_t skipped = 0;
  // Sources decode this many at a time (under every setting at once); progress counts these chunks.
  int64_t chunk_sources = 32;
  int64_t chunks() const { return (static_cast<int64_t>(sources.size()) + chunk_sources - 1) / chunk_sources; }
};

// Throws aw::Error when no pair fits the model's positions.
BleuTask make_bleu_task(const ModelConfig& config, std::shared_ptr<const TranslationCodec> codec,
                        const std::vector<TranslationPair>& pairs, const SearchSettings& search);

// The scores of every gate setting, gates [S, blocks, H_max]: each chunk of sources decodes under all
// settings in batched searches of at most `max_rows` rows (sources × settings; 0 = 64 on the CPU,
// 256 on a GPU), with `options.diagonal` on the decoder. Progress counts chunks; empty on cancel.
std::vector<TranslationScores> score_gate_settings(SequenceToSequenceModel& model, const BleuTask& task,
                                                   const torch::Tensor& gates, const ForwardOptions& options = {},
                                                   const ProgressCallback& progress = {}, int64_t max_rows = 0);

// One setting's scores (`options.head_gates` [blocks, H_max] or undefined = every head on), `batch`
// sources per search; progress counts sources done. Throws aw::Error when no pair is left.
TranslationScores score_translations(SequenceToSequenceModel& model, const TranslationCodec& codec,
                                     const std::vector<TranslationPair>& pairs, const SearchSettings& search,
                                     int64_t batch, const ForwardOptions& options = {},
                                     const ProgressCallback& progress = {});

}  // namespace aw
