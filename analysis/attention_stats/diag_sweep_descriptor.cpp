// analysis/attention_stats/diag_sweep_descriptor.cpp — Bird-Eye Table 2 / Figure 3 as a descriptor: the
// metric with every layer's dot-product diagonal scaled by each factor, or masked, against the model as
// trained, with the paired bootstrap of each difference (analysis/attention_stats/diagonal_sweep.h).
#include "analysis/attention_stats/diagonal_sweep.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"

namespace aw {
namespace {

AnalysisReport run_diagonal_sweep(const AnalysisRequest& request) {
  AnalysisReport report;
  auto points = parse_diagonal_factors(request.settings.text("factors"));
  const auto corpus = corpus_settings(request.settings);
  const auto metric = metric_settings(request.settings);
  const auto& loaded = *request.models.front();
  const auto data = metric_data(corpus, metric, loaded, "diag-sweep", request.note);
  const auto significance = significance_for(significance_options(request.settings), data, request.note);
  ForwardOptions base;
  base.head_gates = request_gates(request, 0);
  // Each point against the model as trained: one more evaluation, and the examples kept for the bootstrap.
  auto result = diagonal_sweep(loaded.name, std::move(points), data_evaluator(*loaded.model, data, significance.enabled()),
                               data.progress_units(), base, request.phase("batches"), significance);
  if (result.cancelled) return report.cancelled = true, report;
  report.tables["csv"] = diagonal_sweep_table(result);
  return report;
}

}  // namespace

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
  append_fields(descriptor.fields, translation_metric_fields());
  descriptor.fields.push_back(text_field("factors", "Factors", default_diagonal_factors(),
                                         "diagonal factors (\"mask\" = DiagFreeMask)", "0,0.2,…,2,mask"));
  append_fields(descriptor.fields, significance_fields());
  descriptor.fields.push_back(heads_off_field());
  descriptor.plot = "diag-sweep";
  descriptor.tab.order = 60;
  descriptor.tab.legacy_id = "diag_sweep";
  descriptor.tab.description =
      "<b>Bird-Eye Table 2 / Figure 3.</b> The metric with the dot-product diagonal multiplied by each factor at "
      "inference; \"mask\" = DiagFreeMask (the diagonal removed except for row 0). With a bootstrap, the band is the "
      "95 % interval of each point's difference from the model as trained (paired over the windows).";
  descriptor.run = run_diagonal_sweep;
  return descriptor;
}

}  // namespace aw
