// analysis/heads/importance_descriptor.cpp — Michel §4.1 as a descriptor: I_h = mean |∂L/∂ξ_h| per head,
// each layer divided by its ℓ2 norm unless asked not to (analysis/heads/head_importance.h).
#include "analysis/core/analysis_inputs.h"
#include "analysis/core/attention_blocks.h"
#include "analysis/heads/checkpoint_series.h"
#include "analysis/heads/head_importance.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"

namespace aw {
namespace {

// Michel §6: I_h of every epoch checkpoint the model's run folder kept, one CSV with epoch and step
// in front of each row.
AnalysisReport importance_series(const AnalysisRequest& request) {
  const auto& run = *request.models.front();
  const auto checkpoints = checkpoint_series(run.dir);
  const bool normalize = !request.settings.flag("no-normalize");
  std::vector<std::string> csvs;
  auto epochs = nlohmann::json::array();
  AnalysisReport report;
  for (const auto& checkpoint : checkpoints) {
    const auto loaded = load_checkpoint(checkpoint.dir, run.device);
    AnalysisRequest epoch_request = request;
    epoch_request.models = {&loaded};
    epoch_request.gates.clear();
    const auto blocks = selected_blocks(loaded.config, request.settings.choice("attention"), loaded.name);
    const auto data = corpus_data(epoch_request, loaded, "importance");
    auto result = head_importance(*loaded.model, loaded.name, data, normalize, request_gates(request, 0),
                                  request.phase("epoch " + std::to_string(checkpoint.epoch) + " of " +
                                                std::to_string(checkpoints.back().epoch) + ": batches"),
                                  request.settings.flag("per-example"));
    if (result.cancelled) return report.cancelled = true, report;
    if (request.settings.choice("attention") != "all") result.blocks = blocks;
    csvs.push_back(importance_csv(result));
    auto json = importance_json(result);
    json["epoch"] = checkpoint.epoch;
    json["step"] = checkpoint.step;
    epochs.push_back(std::move(json));
  }
  std::string comment = "model=" + run.name + ", normalized=" + (normalize ? "true" : "false");
  if (request.settings.flag("per-example")) comment += ", per_example=true";
  report.csv["csv"] = series_csv(comment + ", series=" + run.dir, checkpoints, csvs);
  report.json = {{"model", run.name}, {"series", run.dir}, {"epochs", epochs}};
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
  descriptor.run = [](const AnalysisRequest& request) {
    if (request.settings.flag("series")) return importance_series(request);
    AnalysisReport report;
    const auto& loaded = *request.models.front();
    const auto blocks = selected_blocks(loaded.config, request.settings.choice("attention"), loaded.name);
    const auto data = corpus_data(request, loaded, "importance");
    auto result = head_importance(*loaded.model, loaded.name, data, !request.settings.flag("no-normalize"),
                                  request_gates(request, 0), request.phase("batches"),
                                  request.settings.flag("per-example"));
    if (result.cancelled) return report.cancelled = true, report;
    if (request.settings.choice("attention") != "all") result.blocks = blocks;
    report.csv["csv"] = importance_csv(result);
    report.json = importance_json(result);
    report.head_scores = HeadScores{"importance", result.scores, 1, 0};
    report.result = std::move(result);
    return report;
  };
  return descriptor;
}

}  // namespace aw
