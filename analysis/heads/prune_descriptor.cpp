// analysis/heads/prune_descriptor.cpp — Michel Figure 3 and Table 4 as a descriptor: the metric as more
// and more heads are switched off in ascending order of importance and/or ablation damage
// (pruning_study.h: rank_heads, pruning_curves; the order may be ranked on other data or read from a
// CSV, head_order_file.h), or — with apply/save — heads removed from the weights for real.
#include "analysis/core/attention_blocks.h"
#include "analysis/core/corpus_data.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_order_file.h"
#include "analysis/heads/head_removal.h"
#include "analysis/heads/prunable_share_change.h"
#include "analysis/heads/pruning_study.h"
#include "models/checkpoint/checkpoint.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <optional>

namespace aw {
namespace {

// What the pruning's settings ask for, checked together.
struct PruneSettings {
  CorpusSettings corpus;
  MetricSettings metric;
  SignificanceOptions significance;
  std::string order = "both";      // importance, oracle or both
  std::string rank_text;           // "" = rank on the curves' own data
  std::string order_from;          // "" = rank here
  std::string attention = "all";
  double step_percent = 10;
  bool series = false;
  bool per_example = false;  // the importance order by Michel's Eq. 2, per example
  double max_drop_percent = 10;
  std::optional<int64_t> apply;    // percent removed for real
  std::string save;
};

PruneSettings prune_settings(const SettingValues& settings) {
  PruneSettings prune;
  prune.corpus = corpus_settings(settings);
  prune.metric = metric_settings(settings);
  prune.significance = significance_options(settings);
  if (settings.given("rank-text")) prune.rank_text = settings.text("rank-text");
  if (settings.given("order-from")) prune.order_from = settings.text("order-from");
  prune.attention = settings.choice("attention");
  prune.step_percent = static_cast<double>(settings.integer("step"));
  prune.series = settings.flag("series");
  prune.per_example = settings.flag("per-example");
  prune.max_drop_percent = static_cast<double>(settings.integer("max-drop"));
  if (settings.given("apply")) prune.apply = settings.integer("apply");
  if (settings.given("save")) prune.save = settings.text("save");
  if (prune.apply.has_value() != settings.given("save"))
    throw SettingError("", "--apply P and --save DIR go together (prune P % of the heads into DIR)");
  const bool from_file = !prune.order_from.empty();
  if (from_file && !prune.rank_text.empty())
    throw SettingError("", "--rank-text and --order-from both choose the order; give one");
  if (from_file && settings.given("order"))
    throw SettingError("order", "comes from --order-from's file (importance or ablation); leave --order out");
  prune.order = settings.given("order") ? settings.choice("order") : prune.apply ? "importance" : "both";
  if (prune.apply && prune.order == "both" && !from_file)
    throw SettingError("", "--apply needs one --order, importance or oracle");
  // --per-example's and --max-drop's conditions are declared on their fields (applies_when).
  if (prune.series) {
    if (prune.apply) throw SettingError("series", "prunes no checkpoint for real; leave --apply and --save out");
    if (from_file) throw SettingError("series", "ranks each epoch's model on its own; leave --order-from out");
  }
  return prune;
}

// Removes the first `percent` % of `order` for real, saves the model into `save_dir`, reloads it and
// compares its metric with the gated model's.
AnalysisReport apply_pruning(const LoadedModel& loaded, const EvaluationData& data, const std::string& order_name,
                             const std::vector<HeadRef>& order, int64_t percent, const std::string& save_dir) {
  const auto count = static_cast<int64_t>(std::lround(percent / 100.0 * order.size()));
  const std::vector<HeadRef> removed(order.begin(), order.begin() + count);
  auto gates = all_heads_on(loaded.config);
  for (const auto& head : removed) gates[head.layer][head.head] = 0.0;
  const auto gated = evaluate_gate_settings(*loaded.model, data, gates.unsqueeze(0), 0).front();
  const auto pruned = remove_heads(*loaded.model, removed);
  std::vector<std::string> vocabulary;
  for (int64_t id = 0; id < loaded.tokenizer->vocab_size(); ++id) vocabulary.push_back(loaded.tokenizer->token_text(id));
  // A transformer_mt folder carries its SentencePiece model over; the others write vocab.txt.
  const auto sentencepiece_model =
      loaded.config.tokenizer == TokenizerKind::SentencePiece ? loaded.dir + "/spm.model" : std::string();
  const auto storage = loaded.stored_dtype == "F16"    ? torch::kFloat16
                       : loaded.stored_dtype == "BF16" ? torch::kBFloat16
                                                       : torch::kFloat32;
  if (loaded.config.format == CheckpointFormat::HuggingFace)  // its own tensor names and tokenizer files
    save_hugging_face_checkpoint(save_dir, *pruned, loaded.dir, storage);
  else
    save_native_checkpoint(save_dir, *pruned, vocabulary, storage == torch::kBFloat16 ? torch::kFloat32 : storage,
                           sentencepiece_model);
  const auto reloaded = load_checkpoint(save_dir, loaded.device);
  // The saved vocabulary is the loaded one, so the same data serves the reloaded model.
  const auto after = evaluate_gate_settings(*reloaded.model, data, all_heads_on(reloaded.config).unsqueeze(0), 0).front();
  AnalysisReport report;
  report.record = {{"model", loaded.name},           {"order", order_name},
                 {"heads_removed", count},         {"heads_total", order.size()},
                 {"parameters_before", loaded.parameter_count},
                 {"parameters_after", reloaded.parameter_count},
                 {"metric", data.metric_name()},   {"gated_metric", gated.metric},
                 {"pruned_metric", after.metric},  {"saved", save_dir}};
  char line[512];
  std::snprintf(line, sizeof line, "pruned %lld of %zu heads (%s order): %lld → %lld parameters; %s %.4f (gated model %.4f); saved to %s\n",
                static_cast<long long>(count), order.size(), order_name.c_str(),
                static_cast<long long>(loaded.parameter_count), static_cast<long long>(reloaded.parameter_count),
                data.metric_name().c_str(), after.metric, gated.metric, save_dir.c_str());
  report.text = line;
  return report;
}

// The orders `prune` asks for on `loaded`: read from its --order-from CSV, or ranked on --rank-text,
// or on `data` itself; `ranked_on` says which file when not `data`. Empty when `progress` cancels.
std::vector<RankedOrder> requested_orders(const PruneSettings& prune, const LoadedModel& loaded,
                                          const EvaluationData& data, const std::vector<int64_t>& pruned_blocks,
                                          const ProgressCallback& progress, const NoteCallback& note,
                                          std::string& ranked_on) {
  std::vector<RankedOrder> orders;
  if (!prune.order_from.empty()) {
    ranked_on = prune.order_from;
    auto file = read_head_order_file(ranked_on, loaded.config, loaded.name, pruned_blocks);
    orders.push_back({file.kind, std::move(file.order)});
    return orders;
  }
  std::optional<EvaluationData> rank_data;
  if (!prune.rank_text.empty()) {
    ranked_on = prune.rank_text;
    auto rank_corpus = prune.corpus;
    rank_corpus.path = ranked_on;
    rank_data = metric_data(rank_corpus, prune.metric, loaded, "prune", note);
  }
  const std::vector<std::string> names =
      prune.order == "both" ? std::vector<std::string>{"importance", "oracle"} : std::vector<std::string>{prune.order};
  for (const auto& name : names) {
    auto heads = rank_heads(*loaded.model, loaded.name, rank_data ? *rank_data : data, name, progress, pruned_blocks,
                            prune.per_example);
    if (heads.empty()) return {};
    orders.push_back({name, std::move(heads)});
  }
  return orders;
}

// The blocks whose heads are pruned: every block (empty) or --attention's.
std::vector<int64_t> pruned_blocks_of(const PruneSettings& prune, const LoadedModel& loaded) {
  const auto blocks = selected_blocks(loaded.config, prune.attention, loaded.name);
  return prune.attention == "all" ? std::vector<int64_t>{} : blocks;
}

// Michel §6: the curves of every epoch checkpoint the model's run folder kept, each ranked on its own
// model, and the share of heads each can lose within --max-drop.
AnalysisReport prune_series(const AnalysisRequest& request, const PruneSettings& prune) {
  const auto& run = *request.models.front();
  PruningSeriesResult series;
  series.model = run.name;
  series.series_dir = run.dir;
  series.max_drop_percent = prune.max_drop_percent;
  series.checkpoints = checkpoint_series(run.dir);
  AnalysisReport report;
  // The first and the last checkpoint's example scores: the share's change is tested over them.
  std::vector<ExampleScores> first_examples, examples;
  for (const auto& checkpoint : series.checkpoints) {
    const auto loaded = load_checkpoint(checkpoint.dir, run.device);
    const auto pruned_blocks = pruned_blocks_of(prune, loaded);
    const auto data = metric_data(prune.corpus, prune.metric, loaded, "prune", request.note);
    const auto progress = request.phase("epoch " + std::to_string(checkpoint.epoch) + " of " +
                                        std::to_string(series.checkpoints.back().epoch) +
                                        ": batches (ranking, then each curve)");
    const auto orders = requested_orders(prune, loaded, data, pruned_blocks, progress, request.note, series.ranked_on);
    if (orders.empty()) return report.cancelled = true, report;
    // The same text at every checkpoint: a refused bootstrap is said once.
    const auto significance = significance_for(prune.significance, data, series.curves.empty() ? request.note : NoteCallback{});
    auto curves =
        pruning_curves(*loaded.model, loaded.name, data, orders, prune.step_percent, progress, significance, &examples);
    if (curves.cancelled) return report.cancelled = true, report;
    if (series.curves.empty()) first_examples = std::move(examples);
    if (loaded.config.is_translation()) curves.attention = prune.attention;
    series.metric_name = curves.metric_name;
    series.shares.push_back(prunable_shares(curves.points, curves.metric_name, series.max_drop_percent));
    series.curves.push_back(std::move(curves));
  }
  report.tables["csv"] = pruning_series_table(series);
  report.tables["curves"] = pruning_series_curves_table(series);
  if (series.curves.size() >= 2)
    report.tables["change"] = share_change_table(series, prunable_share_changes(series, first_examples, examples));
  return report;
}

AnalysisReport run_pruning(const AnalysisRequest& request) {
  const auto prune = prune_settings(request.settings);
  if (prune.series) return prune_series(request, prune);
  const auto& loaded = *request.models.front();
  const auto pruned_blocks = pruned_blocks_of(prune, loaded);
  const auto data = metric_data(prune.corpus, prune.metric, loaded, "prune", request.note);
  const auto progress = request.phase("batches (ranking, then each curve)");
  // The order: read from a CSV, or ranked on --rank-text, or on the curves' own data.
  std::string ranked_on;
  const auto orders = requested_orders(prune, loaded, data, pruned_blocks, progress, request.note, ranked_on);
  AnalysisReport report;
  if (orders.empty()) return report.cancelled = true, report;
  // --apply prunes once by one order and draws no curve.
  if (prune.apply) return apply_pruning(loaded, data, orders.back().name, orders.back().heads, *prune.apply, prune.save);
  const auto significance = significance_for(prune.significance, data, request.note);
  std::vector<ExampleScores> examples;
  auto result =
      pruning_curves(*loaded.model, loaded.name, data, orders, prune.step_percent, progress, significance, &examples);
  if (result.cancelled) return report.cancelled = true, report;
  // Two orders are compared step by step (--between); an epoch series has no use for it.
  if (orders.size() == 2) compare_orders(result, orders, examples);
  if (loaded.config.is_translation()) result.attention = prune.attention;
  result.ranked_on = ranked_on;
  result.per_example = prune.per_example;
  report.tables["csv"] = pruning_table(result);
  if (!result.compared_orders.empty()) report.tables["between"] = order_difference_table(result);
  return report;
}

}  // namespace

AnalysisDescriptor prune_descriptor() {
  AnalysisDescriptor descriptor("prune", "Pruning",
                                "Michel Figure 3: the metric with step % more heads off each step, in ascending order");
  descriptor.distributable = true;
  descriptor.fields = corpus_fields();
  descriptor.fields.push_back(integer_field("step", "Step", 10, 1, 100, "percent of the heads switched off per step", "P"));
  auto order = choice_field("order", "Order", {"importance", "oracle", "both"}, "",
                            "importance, single-head ablation damage (oracle) or both (default both; importance with --apply)");
  descriptor.fields.push_back(order);
  descriptor.fields.push_back(path_field("rank-text", "Rank on", false,
                                         "rank the heads on this file and draw the curves on --text (held out)"));
  descriptor.fields.push_back(path_field("order-from", "Order from", false,
                                         "prune in the order of an importance or single-head ablate CSV made elsewhere",
                                         "CSV"));
  auto per_example = flag_field("per-example", "Per example",
                                "the importance order by E_x |∂L(x)/∂ξ_h| (Michel's Eq. 2), one gate row per example, "
                                "not |∂L/∂ξ_h| per batch");
  per_example.applies_when = {
      {"order-from", {""}, "ranks by importance here; --order-from's file already holds the order"},
      {"order", {"", "importance", "both"}, "applies to the importance order; --order oracle ranks by ablation damage"}};
  descriptor.fields.push_back(per_example);
  descriptor.fields.push_back(attention_field());
  append_fields(descriptor.fields, translation_metric_fields());
  append_fields(descriptor.fields, significance_fields());
  descriptor.fields.push_back(flag_field("series", "Epoch series",
                                         "run on each epoch-N checkpoint the model's folder kept (train --keep-epochs): "
                                         "per epoch, the share of heads prunable within --max-drop"));
  auto max_drop = integer_field("max-drop", "Max drop %", 10, 1, 99, "with --series: how much worse (%) the metric may get", "P");
  max_drop.applies_when = {{"series", {"1"}, "applies with --series only"}};
  descriptor.fields.push_back(max_drop);
  descriptor.outputs.push_back({"curves", "curves", "with --series: every epoch's pruning curve (CSV)"});
  descriptor.outputs.push_back({"share-change", "change",
                                "with --series: each order's prunable share at the last epoch minus the first, "
                                "paired bootstrap over the same examples (CSV)"});
  descriptor.outputs.push_back({"between", "between",
                                "with --order both: at each step, importance − oracle, paired bootstrap over the "
                                "same examples (CSV)"});
  auto apply = integer_field("apply", "Apply", 0, 0, 100, "remove P % of the heads for real (with --save)", "P");
  apply.default_text.clear();
  apply.in_form = false;
  descriptor.fields.push_back(apply);
  auto save = path_field("save", "Save", false, "where --apply saves the pruned checkpoint", "DIR");
  save.in_form = false;
  descriptor.fields.push_back(save);
  descriptor.plot = "pruning";
  descriptor.tab.other_tables = {{"between", "importance − oracle per step"},
                                 {"change", "share, last epoch − first"},
                                 {"curves", "every epoch's curve"}};
  descriptor.tab.order = 40;
  descriptor.tab.legacy_id = "pruning";
  descriptor.tab.description =
      "<b>Michel Figure 3.</b> The metric as more and more heads are switched off, in ascending order of "
      "importance and of the single-head ablation damage (oracle). Runs on the full model (all heads on). "
      "<i>Epoch series</i> (Michel §6): for each epoch checkpoint the run kept (train --keep-epochs), the share of "
      "heads it can lose before the metric is more than <i>Max drop</i> % worse.";
  descriptor.run = run_pruning;
  return descriptor;
}

}  // namespace aw
