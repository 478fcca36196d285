// analysis/heads/ablate_descriptor.cpp — Michel Tables 1–3 as a descriptor: the metric with each head off
// (single) or each head alone in its layer (all-but-one) (analysis/heads/head_ablation.h).
#include "analysis/core/analysis_inputs.h"
#include "analysis/core/attention_blocks.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"

#include <cstdio>

namespace aw {

AnalysisDescriptor ablate_descriptor() {
  AnalysisDescriptor descriptor("ablate", "Ablation",
                                "Michel Tables 1–3: the metric with each head off (single) or each head alone in its layer");
  descriptor.distributable = true;
  descriptor.fields = {choice_field("mode", "Mode", {"single", "all-but-one"}, "single",
                                    "one head off at a time, or each head kept alone in its layer")};
  for (auto& field : corpus_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.fields.push_back(attention_field());
  for (auto& field : translation_metric_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.fields.push_back(
      flag_field("all", "Every head", "all-but-one: every head's row, not only the best per layer"));
  for (auto& field : significance_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.fields.push_back(path_field("compare-text", "Compare with", false,
                                         "single: the same ablation on this second file, each head's delta beside its "
                                         "first one, with Pearson and Spearman r (Michel Figure 2)"));
  descriptor.run = [](const AnalysisRequest& request) {
    AnalysisReport report;
    const auto& loaded = *request.models.front();
    const bool single = request.settings.choice("mode") == "single";
    const auto blocks = selected_blocks(loaded.config, request.settings.choice("attention"), loaded.name);
    const bool compare = request.settings.given("compare-text");
    if (compare && !single) throw SettingError("compare-text", "compares single-head effects; it needs --mode single");
    const auto data = metric_data(request, loaded, "ablate");
    const auto progress = request.phase(compare ? "batches (--text, then --compare-text)" : "batches");
    auto result = ablate_heads(*loaded.model, loaded.name, data, single ? AblationMode::Single : AblationMode::AllButOne,
                               request_gates(request, 0), progress, blocks, significance_options(request.settings));
    if (result.cancelled) return report.cancelled = true, report;
    if (compare) {
      // The second file read exactly as --text is (window, batch, metric), the same gates and heads.
      AnalysisRequest other_request = request;
      other_request.settings.set("text", request.settings.text("compare-text"));
      const auto other_data = metric_data(other_request, loaded, "ablate");
      const auto other = ablate_heads(*loaded.model, loaded.name, other_data, AblationMode::Single,
                                      request_gates(request, 0), progress, blocks);
      if (other.cancelled) return report.cancelled = true, report;
      add_comparison(result, other, request.settings.text("text"), request.settings.text("compare-text"));
      char line[160];
      std::snprintf(line, sizeof line, "across the two files: Pearson r = %.3f, Spearman ρ = %.3f over %zu heads",
                    result.comparison.pearson, result.comparison.spearman, result.heads.size());
      request.tell(line);
    }
    report.csv["csv"] = ablation_csv(result, request.settings.flag("all"));
    report.json = ablation_json(result);
    if (single) {
      HeadScores scores;
      scores.label = "Δ " + result.metric_name;
      scores.values.resize(loaded.config.n_blocks);
      for (const auto& effect : result.heads) scores.values[effect.layer - 1].push_back(effect.delta);
      // Perplexity going up and accuracy going down both count as harm.
      scores.damage_sign = damage(result.metric_name, 0.0, 1.0) > 0 ? 1 : -1;
      report.head_scores = std::move(scores);
    }
    report.result = std::move(result);
    return report;
  };
  return descriptor;
}

}  // namespace aw
