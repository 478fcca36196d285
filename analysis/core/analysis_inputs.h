// analysis/core/analysis_inputs.h — what the analysis descriptors share around the analyses: a request's
// data file read for a loaded model (corpus windows for a language model, labelled examples for a
// classifier), an Evaluator for the diagonal sweep and eval, head gates from on/off flags, and the
// pruning study (both orders' curves) of Michel Figure 3.
#pragma once

#include "analysis/core/descriptor.h"
#include "analysis/attention_stats/diagonal_sweep.h"
#include "analysis/heads/gate_evaluation.h"
#include "analysis/heads/head_pruning.h"
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
// The window a language model's corpus is cut into: --window, else min(128, the model's positions);
// more than the positions is a SettingError.
int64_t corpus_window(const AnalysisRequest& request, const LoadedModel& loaded);
// The same for analyses that need a language model's windows.
std::vector<ModelInput> corpus_windows(const AnalysisRequest& request, const LoadedModel& loaded,
                                       const std::string& analysis);

// Gates [L, H_max] on the model's device from a request's on/off flags for model `index`;
// undefined when every head is on (the flags are empty).
torch::Tensor request_gates(const AnalysisRequest& request, size_t index);

// The whole-dataset evaluation diagonal_sweep runs per point: perplexity, accuracy or BLEU; with
// `keep_examples` each result also holds every example's part (EvaluationResult::example_sums; for
// BLEU [N, kBleuStatistics] sentence counts).
Evaluator data_evaluator(AttentionModel& model, const EvaluationData& data, bool keep_examples = false);

// Gates [L, H_max] from per-layer on/off flags (flags[l][h]); columns past a layer's heads stay 1.
torch::Tensor gates_from_flags(const ModelConfig& config, const std::vector<std::vector<bool>>& flags);

// Michel Figure 3, in two phases so that the heads can be ranked on other data than the curves are
// drawn on (the held-out protocol; or read from a file, head_order_file.h).
// rank_heads: the heads of `blocks` (empty = all; Michel Figure 4 ranks one attention kind at a time)
// in ascending order of "importance" (normalised I_h) or "oracle" (the single-head ablation damage)
// on `data`; empty when `progress` cancels.
std::vector<HeadRef> rank_heads(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                                const std::string& order_name, const ProgressCallback& progress = {},
                                const std::vector<int64_t>& blocks = {});

struct RankedOrder {
  std::string name;  // what the CSV's order column says: importance or oracle
  std::vector<HeadRef> heads;
};

// pruning_curves: each order's curve on `data`, `step_percent` more heads off per point
// (pruning_curve, with `significance`); `cancelled` set when `progress` cancels.
PruningResult pruning_curves(AttentionModel& model, const std::string& model_name, const EvaluationData& data,
                             const std::vector<RankedOrder>& orders, double step_percent,
                             const ProgressCallback& progress = {}, const SignificanceOptions& significance = {});

// The bootstrap the settings of setting_fields.h's significance_fields() ask for.
SignificanceOptions significance_options(const SettingValues& settings);

}  // namespace aw
