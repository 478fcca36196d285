// analysis/core/corpus_data.h — a request's data file read for a loaded model, as the analyses need
// it: windows of a corpus for a language model, labelled examples for a classifier, source<TAB>target
// pairs for a translation model (and, with --metric bleu, what BLEU decodes and scores); and the
// Evaluator that measures a model on such data (perplexity, accuracy or BLEU).
#pragma once

#include "analysis/core/descriptor.h"
#include "analysis/core/shared_settings.h"
#include "analysis/data/evaluation_data.h"
#include "models/checkpoint/checkpoint.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// Throws aw::Error naming `path` when it holds a zero byte in its first 8 KB (a checkpoint's
// weights, an archive): "<path>: is a binary file, not text (…): <command> needs <expected>".
// A file that cannot be opened passes, for its reader to say so.
void require_text_file(const std::string& path, const std::string& command, const std::string& expected);

// require_text_file, then throws aw::Error "<path>: holds label<TAB>text lines …" when `path` looks
// like a classifier's labelled file (its first non-empty lines, up to 20, all start with a one-word
// label and a tab), since a language model would read the labels as text. CoNLL-U files pass.
void require_plain_text(const std::string& path, const std::string& model_name, const std::string& command);

// The corpus's file read for `loaded` as `analysis` needs it: windows of the window's tokens
// (corpus_window) for a language model, label<TAB>text examples (cut at the model's positions; `note`
// is told how many) for a classifier, where a window is refused rather than silently ignored;
// source<TAB>target pairs for a translation model (its reference translations, teacher-forced; pairs
// longer than its positions are left out and `note` is told).
EvaluationData corpus_data(const CorpusSettings& corpus, const LoadedModel& loaded, const std::string& analysis,
                           const NoteCallback& note);
// corpus_data for an analysis with translation_metric_fields(): with bleu (translation models only,
// else a SettingError) the data also carry the sources and references BLEU decodes and scores; a beam
// given without bleu is a SettingError too.
EvaluationData metric_data(const CorpusSettings& corpus, const MetricSettings& metric, const LoadedModel& loaded,
                           const std::string& analysis, const NoteCallback& note);
// The window a language model's corpus is cut into: the one given, else min(128, the model's
// positions); more than the positions is a SettingError naming --window.
int64_t corpus_window(const CorpusSettings& corpus, const LoadedModel& loaded);
// The same for analyses that need a language model's windows.
std::vector<ModelInput> corpus_windows(const CorpusSettings& corpus, const LoadedModel& loaded,
                                       const std::string& analysis);

// The whole-dataset evaluation diagonal_sweep runs per point: perplexity, accuracy or BLEU; with
// `keep_examples` each result also holds every example's part (EvaluationResult::example_sums; for
// BLEU [N, kBleuStatistics] sentence counts).
Evaluator data_evaluator(AttentionModel& model, const EvaluationData& data, bool keep_examples = false);

}  // namespace aw
