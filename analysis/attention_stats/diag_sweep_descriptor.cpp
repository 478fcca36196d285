// analysis/attention_stats/diag_sweep_descriptor.cpp — Bird-Eye Table 2 / Figure 3 as a descriptor: the metric with
// every layer's dot-product diagonal scaled by each factor, or masked, against the model as trained,
// with the paired bootstrap of each difference (analysis/attention_stats/diagonal_sweep.h).
#include "analysis/core/analysis_inputs.h"
#include "analysis/attention_stats/diagonal_sweep.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"

namespace aw {

AnalysisDescriptor diag_sweep_descriptor() {
  AnalysisDescriptor descriptor("diag-sweep", "Diagonal sweep",
                                "Bird-Eye Table 2 / Figure 3: the metric with the dot-product diagonal scaled by each factor");
  // The intervention, and DiagFreeMask's exception for row 0 (which sees only itself), are defined
  // on causal attention; an encoder's [CLS] row would silently keep its diagonal. A translation
  // model's intervention is on its decoder's self-attention (the encoder and cross-attention keep
  // theirs).
  descriptor.distributable = true;
  descriptor.models = ModelRequirement::CausalAttention;
  descriptor.fields = corpus_fields();
  for (auto& field : translation_metric_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.fields.push_back(text_field("factors", "Factors", default_diagonal_factors(),
                                         "diagonal factors (\"mask\" = DiagFreeMask)", "0,0.2,…,2,mask"));
  for (auto& field : significance_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.run = [](const AnalysisRequest& request) {
    AnalysisReport report;
    auto points = parse_diagonal_factors(request.settings.text("factors"));
    const auto& loaded = *request.models.front();
    const auto data = metric_data(request, loaded, "diag-sweep");
    ForwardOptions base;
    base.head_gates = request_gates(request, 0);
    // Each point against the model as trained: one more evaluation, and the examples kept for the bootstrap.
    const auto significance = significance_options(request.settings);
    auto result = diagonal_sweep(loaded.name, std::move(points), data_evaluator(*loaded.model, data, significance.enabled()),
                                 data.progress_units(), base, request.phase("batches"), significance);
    if (result.cancelled) return report.cancelled = true, report;
    report.csv["csv"] = diagonal_sweep_csv(result);
    report.json = diagonal_sweep_json(result);
    report.result = std::move(result);
    return report;
  };
  return descriptor;
}

}  // namespace aw
