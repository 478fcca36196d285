// analysis/heads/ablate_descriptor.cpp — Michel Tables 1–3 as a descriptor: the metric with each head off
// (single) or each head alone in its layer (all-but-one) (analysis/heads/head_ablation.h).
#include "analysis/core/attention_blocks.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/heads/head_ablation.h"

#include <cstdio>

namespace aw {
namespace {

// What the ablation's own fields ask for.
struct AblateSettings {
  bool single = true;
  bool every_head = false;
  std::string attention;
  std::string compare_text;  // "" = no second file
  std::string choose_on;     // "" = each layer's best head chosen on --text itself
};

AblateSettings ablate_settings(const SettingValues& settings) {
  AblateSettings ablate;
  ablate.single = settings.choice("mode") == "single";
  ablate.every_head = settings.flag("all");
  ablate.attention = settings.choice("attention");
  // Which mode each of these needs is declared on its field (applies_when) and checked before the run.
  if (settings.given("compare-text")) ablate.compare_text = settings.text("compare-text");
  if (settings.given("choose-on")) ablate.choose_on = settings.text("choose-on");
  return ablate;
}

// Michel Tables 5–6: each layer's best lone head chosen on the held-out file (read exactly as --text is),
// then only those heads kept, one per layer, on --text.
AblationResult keep_heads_chosen_on(const AnalysisRequest& request, const std::string& choose_on,
                                    const CorpusSettings& corpus, const MetricSettings& metric,
                                    const EvaluationData& data, const torch::Tensor& gates,
                                    const std::vector<int64_t>& blocks, const ProgressCallback& progress,
                                    const SignificanceOptions& significance) {
  const auto& loaded = *request.models.front();
  auto held_out_corpus = corpus;
  held_out_corpus.path = choose_on;
  const auto held_out_data = metric_data(held_out_corpus, metric, loaded, "ablate", request.note);
  const auto held_out =
      ablate_heads(*loaded.model, loaded.name, held_out_data, AblationMode::AllButOne, gates, progress, blocks);
  if (held_out.cancelled) return held_out;
  // Named as --heads-off names heads (2.3, cross1.4), so the choice can be pasted into a later run.
  std::vector<HeadRef> chosen;
  for (const auto& head : held_out.best_per_layer) chosen.push_back({head.layer - 1, head.head - 1});
  request.tell("heads chosen on " + choose_on + ": " + heads_off_group_text(heads_off_group(chosen, loaded.config)));
  return keep_chosen_heads(*loaded.model, loaded.name, data, held_out.best_per_layer, choose_on, gates, progress,
                           significance);
}

AnalysisReport run_ablation(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& loaded = *request.models.front();
  const auto ablate = ablate_settings(request.settings);
  const auto corpus = corpus_settings(request.settings);
  const auto metric = metric_settings(request.settings);
  const auto gates = request_gates(request, 0);
  const auto blocks = selected_blocks(loaded.config, ablate.attention, loaded.name);
  const bool compare = !ablate.compare_text.empty();
  const auto data = metric_data(corpus, metric, loaded, "ablate", request.note);
  const auto significance = significance_for(significance_options(request.settings), data, request.note);
  const bool held_out = !ablate.choose_on.empty();
  const auto progress = request.phase(compare    ? "batches (--text, then --compare-text)"
                                      : held_out ? "batches (--choose-on, then --text)"
                                                 : "batches");
  auto result = held_out ? keep_heads_chosen_on(request, ablate.choose_on, corpus, metric, data, gates, blocks,
                                                progress, significance)
                         : ablate_heads(*loaded.model, loaded.name, data,
                                        ablate.single ? AblationMode::Single : AblationMode::AllButOne, gates, progress,
                                        blocks, significance);
  if (result.cancelled) return report.cancelled = true, report;
  if (compare) {
    // The second file read exactly as --text is (window, batch, metric), the same gates and heads.
    auto other_corpus = corpus;
    other_corpus.path = ablate.compare_text;
    const auto other_data = metric_data(other_corpus, metric, loaded, "ablate", request.note);
    const auto other = ablate_heads(*loaded.model, loaded.name, other_data, AblationMode::Single, gates, progress, blocks);
    if (other.cancelled) return report.cancelled = true, report;
    add_comparison(result, other, corpus.path, ablate.compare_text);
    char line[160];
    std::snprintf(line, sizeof line, "across the two files: Pearson r = %.3f, Spearman ρ = %.3f over %zu heads",
                  result.comparison.pearson, result.comparison.spearman, result.heads.size());
    request.tell(line);
  }
  report.tables["csv"] = ablation_table(result, ablate.every_head);
  if (ablate.single) {
    HeadScores scores;
    scores.label = "Δ " + result.metric_name;
    scores.values.resize(loaded.config.n_blocks);
    for (const auto& effect : result.heads) scores.values[effect.layer - 1].push_back(effect.delta);
    // Perplexity going up and accuracy going down both count as harm.
    scores.damage_sign = damage(result.metric_name, 0.0, 1.0) > 0 ? 1 : -1;
    report.head_scores = std::move(scores);
  }
  return report;
}

}  // namespace

AnalysisDescriptor ablate_descriptor() {
  AnalysisDescriptor descriptor("ablate", "Ablation",
                                "Michel Tables 1–3: the metric with each head off (single) or each head alone in its layer");
  descriptor.distributable = true;
  descriptor.fields = {choice_field("mode", "Mode", {"single", "all-but-one"}, "single",
                                    "one head off at a time, or each head kept alone in its layer")};
  append_fields(descriptor.fields, corpus_fields());
  descriptor.fields.push_back(attention_field());
  append_fields(descriptor.fields, translation_metric_fields());
  auto every_head = flag_field("all", "Every head", "all-but-one: every head's row, not only the best per layer");
  every_head.applies_when = {{"mode", {"all-but-one"}, "gives every lone head's row; it needs --mode all-but-one"}};
  descriptor.fields.push_back(every_head);
  append_fields(descriptor.fields, significance_fields());
  auto compare_text = path_field("compare-text", "Compare with", false,
                                 "single: the same ablation on this second file, each head's delta beside its first "
                                 "one, with Pearson and Spearman r (Michel Figure 2)");
  compare_text.applies_when = {{"mode", {"single"}, "compares single-head effects; it needs --mode single"}};
  descriptor.fields.push_back(compare_text);
  auto choose_on = path_field("choose-on", "Choose heads on", false,
                              "all-but-one: choose each layer's best lone head on this held-out file, then keep only "
                              "it on --text (Michel Tables 5–6)");
  choose_on.applies_when = {
      {"mode", {"all-but-one"}, "chooses the head each layer keeps; it needs --mode all-but-one"},
      {"all", {""}, "keeps one chosen head per layer; it cannot give every head's row (--all)"}};
  descriptor.fields.push_back(choose_on);
  descriptor.fields.push_back(heads_off_field());
  descriptor.plot = "ablation";
  descriptor.tab.order = 20;
  descriptor.tab.legacy_id = "ablation";
  descriptor.tab.score_label = "ablation damage";
  descriptor.tab.description =
      "<b>Michel Tables 1–3.</b> <i>single</i>: the metric with each head switched off in turn (Δ against the "
      "current gates). <i>all-but-one</i>: per layer, each head kept alone; the best head per layer, chosen on "
      "the scored text or, with a held-out file, on that file (Tables 5–6).";
  descriptor.run = run_ablation;
  return descriptor;
}

}  // namespace aw
