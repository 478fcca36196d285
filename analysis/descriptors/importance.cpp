// analysis/descriptors/importance.cpp — Michel §4.1 as a descriptor: I_h = mean |∂L/∂ξ_h| per head,
// each layer divided by its ℓ2 norm unless asked not to (analysis/head_importance.h).
#include "analysis/analysis_inputs.h"
#include "analysis/attention_blocks.h"
#include "analysis/head_importance.h"
#include "analysis/registry.h"
#include "analysis/setting_fields.h"

namespace aw {

AnalysisDescriptor importance_descriptor() {
  AnalysisDescriptor descriptor("importance", "Importance",
                                "Michel §4.1: I_h = mean |∂L/∂ξ_h| per head, each layer divided by its ℓ2 norm");
  descriptor.fields = corpus_fields();
  descriptor.fields.push_back(flag_field("no-normalize", "Raw scores", "do not divide each layer by its ℓ2 norm"));
  descriptor.fields.push_back(flag_field("per-example", "Per example",
                                         "E_x |∂L(x)/∂ξ_h| with one gate row per example, not |∂L/∂ξ_h| per batch"));
  descriptor.fields.push_back(attention_field());
  descriptor.run = [](const AnalysisRequest& request) {
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
