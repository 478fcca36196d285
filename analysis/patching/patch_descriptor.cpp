// analysis/patching/patch_descriptor.cpp — `patch`: activation patching per head on clean/corrupted
// pairs (head_patching.h), each head's normalised effect with a bootstrap interval over pairs, and
// its direct logit attribution on the clean prompts.
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/core/shared_settings.h"
#include "analysis/patching/head_patching.h"
#include "analysis/statistics/delta_significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <filesystem>

namespace aw {
namespace {

std::string format_number(double value) { return cell_text(Cell(value), 3); }

// The (layer, head) cells a model has, layer-major.
std::vector<std::pair<int64_t, int64_t>> model_heads(const std::vector<int64_t>& heads_per_layer) {
  std::vector<std::pair<int64_t, int64_t>> heads;
  for (int64_t layer = 0; layer < static_cast<int64_t>(heads_per_layer.size()); ++layer)
    for (int64_t head = 0; head < heads_per_layer[layer]; ++head) heads.emplace_back(layer, head);
  return heads;
}

struct Effects {
  torch::Tensor effect, dla;  // [K] float64, one per model head
  std::vector<DeltaSignificance> effect_significance, dla_significance;  // empty without a bootstrap
  // Why no effect is given: the clean and corrupted runs do not differ reliably, so every effect
  // would be a ratio to noise ("" when they do, or when no bootstrap could tell).
  std::string refused;
};

// effect = Σ_p (patched − corrupted) / Σ_p (clean − corrupted) per head, the mean DLA per head, and
// (with a bootstrap) both resampled over pairs: one resampling for every column.
Effects effects(const PatchResult& result, const SignificanceOptions& options) {
  const auto heads = model_heads(result.heads_per_layer);
  const auto count = result.clean.size(0);
  const auto restored = result.clean - result.corrupted;                                      // [P]
  std::vector<torch::Tensor> gained, attributed;
  for (const auto& [layer, head] : heads) {
    gained.push_back(result.patched[layer][head] - result.corrupted);
    attributed.push_back(result.dla[layer][head]);
  }
  const auto gains = torch::stack(gained, 1), dla = torch::stack(attributed, 1);              // [P, K]
  Effects out;
  out.effect = gains.sum(0) / restored.sum();
  out.dla = dla.mean(0);
  if (!options.enabled()) return out;
  const auto k = static_cast<int64_t>(heads.size());
  const bool with_dla = result.dla_refused.empty();
  const auto columns = with_dla ? torch::cat({gains, restored.unsqueeze(1), dla}, 1) : torch::cat({gains, restored.unsqueeze(1)}, 1);
  const auto resampled = resampled_sums(columns, options.resamples, options.seed);
  const auto effect = resampled.narrow(1, 0, k) / resampled.narrow(1, k, 1);
  if (with_dla) {
    const auto mean_dla = resampled.narrow(1, k + 1, k) / static_cast<double>(count);
    out.dla_significance = corrected_significance(summarize_bootstrap(out.dla, mean_dla), options);
  }
  // The denominator first: an interval of the mean restored difference that holds 0 leaves every
  // effect undefined.
  const auto denominator = summarize_bootstrap(restored.mean().view({1}), resampled.narrow(1, k, 1) / static_cast<double>(count));
  if (denominator[0].low <= 0 && denominator[0].high >= 0) {
    out.refused = "no effects: the mean logit difference clean - corrupted is " + format_number(denominator[0].mean) +
                  " and its 95 % interval [" + format_number(denominator[0].low) + " " + format_number(denominator[0].high) +
                  "] holds 0 so each effect would be a ratio to noise (the DLA stands)";
    out.effect = torch::full_like(out.effect, std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  out.effect_significance = corrected_significance(summarize_bootstrap(out.effect, effect), options);
  return out;
}

ResultTable patch_table(const PatchResult& result, const Effects& effects, const SignificanceOptions& options) {
  ResultTable table;
  table.meta("metric", "logit(answer) - logit(foil) at the last position");
  table.meta("clean_mean", result.clean.mean().item<double>());
  table.meta("corrupted_mean", result.corrupted.mean().item<double>());
  add_significance_meta(table, options);
  // A residual-stream point's units are positions (from 0, as --position), a head point's heads (from 1).
  const bool by_position = !result.positions.empty();
  table.add_column("layer", ColumnType::Integer).add_column(by_position ? "position" : "head", ColumnType::Integer);
  if (!effects.refused.empty()) table.meta("effect", effects.refused);
  if (!result.dla_refused.empty() && !by_position) table.meta("dla", result.dla_refused);
  const bool intervals = !effects.effect_significance.empty();
  const bool dla_intervals = !effects.dla_significance.empty();
  table.add_column("effect", ColumnType::Number);
  if (intervals)
    for (const char* name : {"effect_low", "effect_high", "p_value", "p_adjusted"}) table.add_column(name, ColumnType::Number);
  if (intervals) table.add_column("significant", ColumnType::Integer);
  if (!by_position) table.add_column("dla", ColumnType::Number);
  if (dla_intervals) table.add_column("dla_low", ColumnType::Number).add_column("dla_high", ColumnType::Number);
  const auto heads = model_heads(result.heads_per_layer);
  const auto effect = effects.effect.accessor<double, 1>(), dla = effects.dla.accessor<double, 1>();
  for (size_t i = 0; i < heads.size(); ++i) {
    const int64_t unit = by_position ? result.positions[static_cast<size_t>(heads[i].second)] : heads[i].second + 1;
    std::vector<Cell> row = {heads[i].first + 1, unit, effect[static_cast<int64_t>(i)]};
    if (intervals) {
      const auto& e = effects.effect_significance[i].holding(effect[static_cast<int64_t>(i)]);
      append_cells(row, {e.low, e.high, e.p_value, e.p_adjusted, static_cast<int64_t>(e.significant)});
    }
    if (!by_position) row.emplace_back(dla[static_cast<int64_t>(i)]);
    if (dla_intervals) {
      const auto& d = effects.dla_significance[i].holding(dla[static_cast<int64_t>(i)]);
      append_cells(row, {d.low, d.high});
    }
    table.add_row(std::move(row));
  }
  return table;
}

PatchKind patch_kind(const std::string& name) { return name == "pattern" ? PatchKind::Pattern : PatchKind::Output; }

AnalysisReport run_patch(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& settings = request.settings;
  const auto& loaded = *request.models.front();
  const auto path = settings.required_text("pairs");
  const auto pairs = read_patch_pairs(path, *loaded.tokenizer, loaded.config.max_positions);
  PatchSettings patch;
  patch.kind = patch_kind(settings.choice("kind"));
  const auto hook = settings.choice("hook");
  if (settings.given("hook")) patch.point = *hook_point_named(hook);  // the field's choices are point names
  if (settings.given("position")) {  // output patching only: the field's condition (applies_when)
    patch.position = settings.integer("position");
    for (const auto& pair : pairs)
      if (patch.position >= static_cast<int64_t>(pair.clean.size()))
        throw Error(path + ":" + std::to_string(pair.line) + ": position " + std::to_string(patch.position) +
                    " is past the prompts' " + std::to_string(pair.clean.size()) + " tokens");
  }
  if (patch.kind == PatchKind::Output && !per_head(patch.point)) {  // a residual-stream point: by position
    try {
      patched_positions(pairs, patch.position, patch.point);
    } catch (const Error& error) {
      throw Error(path + ": " + error.what());
    }
  }
  patch.batch = settings.integer("batch");
  patch.gates = request_gates(request, 0);
  const auto significance =
      significance_for_units(significance_options(settings), "pairs", static_cast<int64_t>(pairs.size()), request.note);
  const auto result = patch_heads(*loaded.model, pairs, patch, request.phase(loaded.name + ": layers patched"));
  if (result.cancelled) return report.cancelled = true, report;
  require_restorable(path, result.clean, result.corrupted);
  const auto measured = effects(result, significance);
  auto table = patch_table(result, measured, significance);
  table.meta("model", loaded.name);
  table.meta("pairs", static_cast<int64_t>(pairs.size()));
  table.meta("kind", settings.choice("kind"));
  table.meta("position", patch.position >= 0 ? std::to_string(patch.position) : std::string("all"));
  const bool key_value = patch.point == HookPoint::K || patch.point == HookPoint::V;
  if (patch.point != HookPoint::Z) table.meta("hook", hook_point_name(patch.point));  // k and v: key/value heads
  table.meta("data", std::filesystem::path(path).filename().string());
  report.tables["csv"] = std::move(table);
  if (!measured.refused.empty()) request.tell(measured.refused);
  if (!result.dla_refused.empty() && result.positions.empty()) request.tell(result.dla_refused);
  // The heads panel: the effects, or the attributions where no effect could be given (not for key/value
  // heads, which the panel's query heads are not, nor positions).
  if (key_value || !result.positions.empty()) return report;
  const bool by_effect = measured.refused.empty();
  HeadScores scores{by_effect ? "patching effect" : "DLA", {}, 1, 0};
  int64_t index = 0;
  const auto effect = (by_effect ? measured.effect : measured.dla).accessor<double, 1>();
  for (const int64_t heads : result.heads_per_layer) {
    scores.values.emplace_back();
    for (int64_t head = 0; head < heads; ++head) scores.values.back().push_back(effect[index++]);
  }
  report.head_scores = std::move(scores);
  return report;
}

}  // namespace

AnalysisDescriptor patch_descriptor() {
  AnalysisDescriptor descriptor("patch", "Patching",
                                "activation patching per head (normalised effect, bootstrap interval) and direct "
                                "logit attribution on clean/corrupted pairs");
  descriptor.models = ModelRequirement::LanguageModel;
  descriptor.fields = {
      path_field("pairs", "Pairs", true, "clean<TAB>corrupted<TAB>answer<TAB>foil lines (answer and foil one token each)"),
      choice_field("kind", "Patch", {"output", "pattern"}, "output",
                   "output: a head's output before the output projection; pattern: its attention probabilities"),
      choice_field("hook", "At",
                   {"z", "q", "k", "v", "head_out", "resid_pre", "attn_out", "resid_mid", "mlp_out", "resid_post"}, "z",
                   "output patching at this hook point (docs/hooks.md): z, the head's context; q, k, v its "
                   "query, key or value (k and v per key/value head); head_out its write; resid_pre … resid_post a "
                   "layer's residual stream, per position"),
      integer_field("position", "Position", 0, 0, 1 << 20,
                    "output patching at this token position only (from 0; default every position)", "P"),
      integer_field("batch", "Batch", 8, 1, 1 << 20, "pairs per forward", "B")};
  descriptor.fields[2].applies_when = {
      {"kind", {"output"}, "applies to output patching (--kind output): a pattern is patched whole"}};
  descriptor.fields[3].default_text.clear();  // every position
  descriptor.fields[3].applies_when = {
      {"kind", {"output"}, "applies to output patching (--kind output): a pattern is patched whole"}};
  append_fields(descriptor.fields, significance_fields());
  descriptor.fields.push_back(heads_off_field());
  descriptor.plot = "patching";
  descriptor.tab.order = 57;
  descriptor.tab.score_label = "patching effect";
  descriptor.tab.description =
      "<b>Activation patching.</b> For each head, the corrupted prompt is run with that head's output (or attention "
      "pattern) taken from the clean prompt; the effect is how much of the logit difference answer − foil it "
      "restores, (patched − corrupted) / (clean − corrupted) over all pairs: 0 = none, 1 = all of it, with a bootstrap "
      "interval over pairs. DLA: what the head writes at the last position, through the final norm, onto answer − "
      "foil on the clean prompt. Definitions: docs/patching.md.";
  descriptor.run = run_patch;
  return descriptor;
}

}  // namespace aw
