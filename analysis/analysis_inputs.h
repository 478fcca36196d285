// analysis/analysis_inputs.h — what the analysis descriptors share around the analyses: a request's
// data file read for a loaded model (corpus windows for a language model, labelled examples for a
// classifier), an Evaluator for the diagonal sweep and eval, head gates from on/off flags, and the
// pruning study (both orders' curves) of Michel Figure 3.
#pragma once

#include "analysis/descriptor.h"
#include "analysis/diagonal_sweep.h"
#include "analysis/gate_evaluation.h"
#include "analysis/head_pruning.h"
#include "models/checkpoint/checkpoint.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// Throws aw::Error "<path>: holds label<TAB>text lines …" when `path` looks like a classifier's
// labelled file (its first non-empty lines, up to 20, all start with a one-word label and a tab),
// since a language model would read the labels as text. CoNLL-U files pass.
void require_plain_text(const std::string& path, const std::string& model_name, const std::string& command);

// The request's --text for `loaded`, read as `analysis` needs it: windows of --window tokens
// (default min(128, the model's positions); more than the positions is a SettingError) for a
// language model, label<TAB>text examples (cut at the model's positions; the request is told how
// many) for a classifier, where --window is refused rather than silently ignored; source<TAB>target
// pairs for a translation model (its reference translations, teacher-forced; pairs longer than its
// positions are left out and the request is told).
EvaluationData corpus_data(const AnalysisRequest& request, const LoadedModel& loaded, const std::string& analysis);
// corpus_data for an analysis with translation_metric_fields(): with --metric bleu (translation
// models only, else a SettingError) the data also carry the sources and references BLEU decodes and
// scores, with --beam; --beam without --metric bleu is a SettingError too.
EvaluationData metric_data(const AnalysisRequest& request, const LoadedModel& loaded, const std::string& analysis);
// The same for analyses that need a language model's windows.
std::vector<ModelInput> corpus_windows(const AnalysisRequest& request, const LoadedModel& loaded,
                                       const std::string& analysis);

// Gates [L, H_max] on the model's device from a request's on/off flags for model `index`;
// undefined when every head is on (the flags are empty).
torch::Tensor request_gates(const AnalysisRequest& request, size_t index);

// The whole-dataset evaluation diagonal_sweep runs per point: perplexity, accuracy or BLEU.
Evaluator data_evaluator(AttentionModel& model, const EvaluationData& data);

// Gates [L, H_max] from per-layer on/off flags (flags[l][h]); columns past a layer's heads stay 1.
torch::Tensor gates_from_flags(const ModelConfig& config, const std::vector<std::vector<bool>>& flags);

// Michel Figure 3: pruning curves in ascending order of head importance and/or of the single-head
// ablation damage ("oracle"), `step_percent` more heads off per point. `orders` holds "importance"
// and/or "oracle". `progress` sees each phase's batches; on cancel the result has `cancelled` set.
// `orders_out` (optional) receives each order's head sequence, in the order of `orders`. `blocks`
// (empty = all) limits the heads ranked and pruned to those blocks (Michel Figure 4: one attention
// kind at a time). `significance` applies to the curves (head_pruning.h).
PruningResult pruning_study(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                            const std::vector<std::string>& orders, double step_percent,
                            const ProgressCallback& progress = {},
                            std::vector<std::vector<HeadRef>>* orders_out = nullptr, bool draw_curves = true,
                            const std::vector<int64_t>& blocks = {}, const SignificanceOptions& significance = {});

// The bootstrap the settings of setting_fields.h's significance_fields() ask for.
SignificanceOptions significance_options(const SettingValues& settings);

}  // namespace aw
