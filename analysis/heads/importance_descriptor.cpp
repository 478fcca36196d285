// analysis/heads/importance_descriptor.cpp — Michel §4.1 as a descriptor: I_h = mean |∂L/∂ξ_h| per head,
// each layer divided by its ℓ2 norm unless asked not to (analysis/heads/head_importance.h).
#include "analysis/core/attention_blocks.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/heads/checkpoint_series.h"
#include "analysis/heads/head_importance.h"

namespace aw {
namespace {

// What the importance's own fields ask for.
struct ImportanceSettings {
  bool normalize = true;
  bool per_example = false;
  bool series = false;
  std::string attention;
};

ImportanceSettings importance_settings(const SettingValues& settings) {
  return {!settings.flag("no-normalize"), settings.flag("per-example"), settings.flag("series"),
          settings.choice("attention")};
}

// I_h of one loaded model on the corpus; the chosen attention's blocks only in the table.
ImportanceResult importance_of(const AnalysisRequest& request, const LoadedModel& loaded, const ImportanceSettings& asked,
                               const std::string& phase) {
  const auto blocks = selected_blocks(loaded.config, asked.attention, loaded.name);
  const auto data = corpus_data(corpus_settings(request.settings), loaded, "importance", request.note);
  auto result = head_importance(*loaded.model, loaded.name, data, asked.normalize, request_gates(request, 0),
                                request.phase(phase), asked.per_example);
  if (asked.attention != "all") result.blocks = blocks;
  return result;
}

// Michel §6: I_h of every epoch checkpoint the model's run folder kept, one table with epoch and step
// in front of each row.
AnalysisReport importance_series(const AnalysisRequest& request, const ImportanceSettings& asked) {
  const auto& run = *request.models.front();
  const auto checkpoints = checkpoint_series(run.dir);
  std::vector<ResultTable> tables;
  AnalysisReport report;
  for (const auto& checkpoint : checkpoints) {
    const auto loaded = load_checkpoint(checkpoint.dir, run.device);
    const auto result = importance_of(request, loaded, asked,
                                      "epoch " + std::to_string(checkpoint.epoch) + " of " +
                                          std::to_string(checkpoints.back().epoch) + ": batches");
    if (result.cancelled) return report.cancelled = true, report;
    tables.push_back(importance_table(result));
  }
  ResultTable joined;
  joined.meta("model", run.name).meta("normalized", asked.normalize);
  if (asked.per_example) joined.meta("per_example", true);
  joined.meta("series", run.dir);
  report.tables["csv"] = series_table(std::move(joined), checkpoints, tables);
  return report;
}

AnalysisReport run_importance(const AnalysisRequest& request) {
  const auto asked = importance_settings(request.settings);
  if (asked.series) return importance_series(request, asked);
  AnalysisReport report;
  auto result = importance_of(request, *request.models.front(), asked, "batches");
  if (result.cancelled) return report.cancelled = true, report;
  report.tables["csv"] = importance_table(result);
  report.head_scores = HeadScores{"importance", result.scores, 1, 0};
  return report;
}

}  // namespace

AnalysisDescriptor importance_descriptor() {
  AnalysisDescriptor descriptor("importance", "Importance",
                                "Michel §4.1: I_h = mean |∂L/∂ξ_h| per head, each layer divided by its ℓ2 norm");
  descriptor.distributable = true;
  descriptor.fields = corpus_fields();
  descriptor.fields.push_back(flag_field("no-normalize", "Raw scores", "do not divide each layer by its ℓ2 norm"));
  descriptor.fields.push_back(flag_field("per-example", "Per example",
                                         "E_x |∂L(x)/∂ξ_h| with one gate row per example, not |∂L/∂ξ_h| per batch"));
  descriptor.fields.push_back(attention_field());
  descriptor.fields.push_back(flag_field("series", "Epoch series",
                                         "I_h of each epoch-N checkpoint the model's folder kept (train --keep-epochs)"));
  descriptor.fields.push_back(heads_off_field());
  descriptor.plot = "importance";
  descriptor.tab.order = 30;
  descriptor.tab.legacy_id = "importance";
  descriptor.tab.score_label = "importance";
  descriptor.tab.description =
      "<b>Michel §4.1.</b> I_h = mean over batches of |∂L/∂ξ_h|, each layer divided by its ℓ2 norm. "
      "<i>Epoch series</i>: I_h of each epoch checkpoint the run kept (train --keep-epochs), heads × epochs.";
  descriptor.run = run_importance;
  return descriptor;
}

}  // namespace aw
