// analysis/attention_stats/stats_descriptor.cpp — Bird-Eye Table 1 as a descriptor: CA, HA(μ), HA(σ),
// Ratio per layer (or head) of every model given, over the windows of a corpus, or over the reference
// translations of source<TAB>target pairs for a translation model's decoder
// (analysis/attention_stats/attention_stats.h).
#include "analysis/attention_stats/attention_stats.h"
#include "analysis/core/attention_blocks.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"

#include <map>
#include <string>
#include <vector>

namespace aw {
namespace {

// One line for every model whose data had too few units: significance_for's own line when they share
// one count, else "… fewer than the 20 independent units the bootstrap needs (--min-units): 1 paragraph
// for a and b; 2 paragraphs for c" (no comma: the line is also a CSV metadata value).
std::string too_few_units(const std::vector<AttentionStatsResult>& results) {
  std::map<int64_t, std::vector<std::string>> models_by_units;
  const SignificanceOptions* first = nullptr;
  for (const auto& result : results) {
    if (result.significance.refused.empty()) continue;
    if (!first) first = &result.significance;
    models_by_units[result.significance.units].push_back(result.model);
  }
  if (!first || models_by_units.size() == 1) return first ? first->refused : "";
  std::string line = first->withheld() + ": fewer than the " + std::to_string(first->min_units) +
                     " independent units the bootstrap needs (--min-units):";
  const auto& unit = first->unit;
  for (const auto& [units, models] : models_by_units) {
    line += (&models == &models_by_units.begin()->second ? " " : "; ") + std::to_string(units) + " " +
            (units == 1 ? unit.substr(0, unit.size() - 1) : unit) + " for ";
    for (size_t i = 0; i < models.size(); ++i) line += (i == 0 ? "" : " and ") + models[i];
  }
  return line;
}

AnalysisReport run_stats(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto corpus = corpus_settings(request.settings);
  const bool per_head = request.settings.flag("per-head");
  const auto attention = request.settings.choice("attention");
  AttentionStatsSettings settings;
  settings.include_first_row = !request.settings.flag("no-first-row");
  const auto significance = significance_options(request.settings);
  std::vector<AttentionStatsResult> results;
  for (size_t index = 0; index < request.models.size(); ++index) {
    const auto& loaded = *request.models[index];
    if (parse_attention_kind(attention) == AttentionKind::Cross)
      throw SettingError("attention", "cross: CA and HA are measured on self-attention, where a token's own "
                                      "position is the diagonal; use enc, dec or all");
    settings.blocks.clear();
    for (const auto block : selected_blocks(loaded.config, attention, loaded.name))
      if (loaded.config.attention_block(block).kind != AttentionKind::Cross) settings.blocks.push_back(block);
    // Windows numbered by paragraph (a language model's text) or sentence pairs: the units resampled.
    const auto data = corpus_data(corpus, loaded, "stats", request.note);
    settings.significance = significance_for(significance, data, {});  // said once for every model, below
    settings.forward.head_gates = request_gates(request, index);
    results.push_back(
        attention_stats(*loaded.model, loaded.name, data.inputs, settings, request.phase(loaded.name + ": batches")));
    if (results.back().cancelled) return report.cancelled = true, report;
  }
  if (const auto line = too_few_units(results); !line.empty()) {
    for (auto& result : results)
      if (!result.significance.refused.empty()) result.significance.refused = line;
    if (request.note) request.note(line);
  }
  report.tables["csv"] = attention_stats_table(results, per_head);
  return report;
}

}  // namespace

AnalysisDescriptor stats_descriptor() {
  AnalysisDescriptor descriptor("stats", "Table 1", "Bird-Eye Table 1: CA, HA(μ), HA(σ), Ratio per layer");
  descriptor.distributable = true;
  descriptor.models = ModelRequirement::CausalAttention;
  descriptor.several_models = true;
  descriptor.fields = corpus_fields();
  descriptor.fields.push_back(flag_field("per-head", "Per head", "one row per head instead of per layer"));
  descriptor.fields.push_back(flag_field("no-first-row", "Without row 0", "row 0 (always 1.0) not counted in CA"));
  auto attention = attention_field();
  attention.help = "dec: causal self-attention (a language model, a translation model's decoder); enc: a translation "
                   "model's encoder (HA over every off-diagonal entry); all: both (cross-attention has no diagonal)";
  descriptor.fields.push_back(attention);
  descriptor.fields.push_back(heads_off_field());
  // The bootstrap's settings, without a correction: the intervals test nothing.
  for (auto& field : significance_fields()) {
    if (field.name == "correction") continue;
    if (field.name == "bootstrap")
      field.help = "bootstrap resamples of the independent units (paragraphs, sentence pairs) for the intervals (0 = none)";
    if (field.name == "min-units") field.help = "the fewest independent units an interval is given for";
    descriptor.fields.push_back(std::move(field));
  }
  descriptor.plot = "table1";
  descriptor.tab.order = 10;
  descriptor.tab.legacy_id = "table1";
  descriptor.tab.models = TabModels::EveryAble;
  descriptor.tab.description =
      "<b>Bird-Eye Table 1.</b> Per layer, over every head, row and window: CA = mean attention on the diagonal, "
      "HA(μ), HA(σ) = mean and standard deviation of the strictly lower-triangular weights (a translation encoder's "
      "rows are not causal: every off-diagonal weight), Ratio = CA / HA(μ). The dashed line and the uniform_ columns: "
      "the same for uniform attention over the same rows. The _low/_high columns: 95 % intervals under resampling "
      "paragraphs of the text (sentence pairs of a translation file). Runs every loaded causal language model or "
      "translation model with its current head gates.";
  descriptor.run = run_stats;
  return descriptor;
}

}  // namespace aw
