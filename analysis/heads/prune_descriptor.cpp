// analysis/heads/prune_descriptor.cpp — Michel Figure 3 and Table 4 as a descriptor: the metric as more
// and more heads are switched off in ascending order of importance and/or ablation damage
// (analysis_inputs.h: rank_heads, pruning_curves; the order may be ranked on other data or read from
// a CSV, head_order_file.h), or — with apply/save — heads removed from the weights for real.
#include "analysis/core/analysis_inputs.h"
#include "analysis/heads/head_ablation.h"
#include "analysis/heads/head_order_file.h"
#include "analysis/heads/head_removal.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "models/checkpoint/checkpoint.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <optional>

namespace aw {
namespace {

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
  report.json = {{"model", loaded.name},           {"order", order_name},
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

// The orders the settings ask for on `loaded`: read from --order-from's CSV, or ranked on --rank-text,
// or on `data` itself; `ranked_on` says which file when not `data`. Empty when `progress` cancels.
std::vector<RankedOrder> requested_orders(const AnalysisRequest& request, const LoadedModel& loaded,
                                          const EvaluationData& data, const std::string& order_name,
                                          const std::vector<int64_t>& pruned_blocks, const ProgressCallback& progress,
                                          std::string& ranked_on) {
  const auto& settings = request.settings;
  std::vector<RankedOrder> orders;
  if (settings.given("order-from")) {
    ranked_on = settings.text("order-from");
    auto file = read_head_order_file(ranked_on, loaded.config, loaded.name, pruned_blocks);
    orders.push_back({file.kind, std::move(file.order)});
    return orders;
  }
  std::optional<EvaluationData> rank_data;
  if (settings.given("rank-text")) {
    ranked_on = settings.text("rank-text");
    AnalysisRequest rank_request = request;
    rank_request.settings.set("text", ranked_on);
    rank_data = metric_data(rank_request, loaded, "prune");
  }
  const std::vector<std::string> names =
      order_name == "both" ? std::vector<std::string>{"importance", "oracle"} : std::vector<std::string>{order_name};
  for (const auto& name : names) {
    auto heads = rank_heads(*loaded.model, loaded.name, rank_data ? *rank_data : data, name, progress, pruned_blocks);
    if (heads.empty()) return {};
    orders.push_back({name, std::move(heads)});
  }
  return orders;
}

// Michel §6: the curves of every epoch checkpoint the model's run folder kept, each ranked on its own
// model, and the share of heads each can lose within --max-drop.
AnalysisReport prune_series(const AnalysisRequest& request, const std::string& order_name) {
  const auto& settings = request.settings;
  const auto& run = *request.models.front();
  PruningSeriesResult series;
  series.model = run.name;
  series.series_dir = run.dir;
  series.max_drop_percent = static_cast<double>(settings.integer("max-drop"));
  series.checkpoints = checkpoint_series(run.dir);
  AnalysisReport report;
  const auto attention = settings.choice("attention");
  for (const auto& checkpoint : series.checkpoints) {
    const auto loaded = load_checkpoint(checkpoint.dir, run.device);
    AnalysisRequest epoch_request = request;
    epoch_request.models = {&loaded};
    epoch_request.gates.clear();
    const auto blocks = selected_blocks(loaded.config, attention, loaded.name);
    const auto pruned_blocks = attention == "all" ? std::vector<int64_t>{} : blocks;
    const auto data = metric_data(epoch_request, loaded, "prune");
    const auto progress = request.phase("epoch " + std::to_string(checkpoint.epoch) + " of " +
                                        std::to_string(series.checkpoints.back().epoch) +
                                        ": batches (ranking, then each curve)");
    const auto orders = requested_orders(epoch_request, loaded, data, order_name, pruned_blocks, progress, series.ranked_on);
    if (orders.empty()) return report.cancelled = true, report;
    auto curves = pruning_curves(*loaded.model, loaded.name, data, orders, static_cast<double>(settings.integer("step")),
                                 progress, significance_options(settings));
    if (curves.cancelled) return report.cancelled = true, report;
    if (loaded.config.is_translation()) curves.attention = attention;
    series.metric_name = curves.metric_name;
    series.shares.push_back(prunable_shares(curves.points, curves.metric_name, series.max_drop_percent));
    series.curves.push_back(std::move(curves));
  }
  report.csv["csv"] = pruning_series_csv(series);
  report.csv["curves"] = pruning_series_curves_csv(series);
  report.json = pruning_series_json(series);
  report.result = std::move(series);
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
  descriptor.fields.push_back(attention_field());
  for (auto& field : translation_metric_fields()) descriptor.fields.push_back(std::move(field));
  for (auto& field : significance_fields()) descriptor.fields.push_back(std::move(field));
  descriptor.fields.push_back(flag_field("series", "Epoch series",
                                         "run on each epoch-N checkpoint the model's folder kept (train --keep-epochs): "
                                         "per epoch, the share of heads prunable within --max-drop"));
  descriptor.fields.push_back(integer_field("max-drop", "Max drop %", 10, 1, 99,
                                            "with --series: how much worse (%) the metric may get", "P"));
  descriptor.outputs.push_back({"curves", "curves", "with --series: every epoch's pruning curve (CSV)"});
  auto apply = integer_field("apply", "Apply", 0, 0, 100, "remove P % of the heads for real (with --save)", "P");
  apply.default_text.clear();
  apply.in_form = false;
  descriptor.fields.push_back(apply);
  auto save = path_field("save", "Save", false, "where --apply saves the pruned checkpoint", "DIR");
  save.in_form = false;
  descriptor.fields.push_back(save);
  descriptor.run = [](const AnalysisRequest& request) {
    const auto& settings = request.settings;
    const bool apply = settings.given("apply");
    if (apply != settings.given("save"))
      throw SettingError("", "--apply P and --save DIR go together (prune P % of the heads into DIR)");
    const bool from_file = settings.given("order-from");
    if (from_file && settings.given("rank-text"))
      throw SettingError("", "--rank-text and --order-from both choose the order; give one");
    if (from_file && settings.given("order"))
      throw SettingError("order", "comes from --order-from's file (importance or ablation); leave --order out");
    const auto order_name = settings.given("order") ? settings.choice("order") : apply ? "importance" : "both";
    if (apply && order_name == "both" && !from_file)
      throw SettingError("", "--apply needs one --order, importance or oracle");
    if (settings.flag("series")) {
      if (apply) throw SettingError("series", "prunes no checkpoint for real; leave --apply and --save out");
      if (from_file) throw SettingError("series", "ranks each epoch's model on its own; leave --order-from out");
      return prune_series(request, order_name);
    }
    if (settings.given("max-drop")) throw SettingError("max-drop", "applies with --series only");
    const auto& loaded = *request.models.front();
    const auto attention = settings.choice("attention");
    const auto blocks = selected_blocks(loaded.config, attention, loaded.name);
    const auto pruned_blocks = attention == "all" ? std::vector<int64_t>{} : blocks;
    const auto data = metric_data(request, loaded, "prune");
    const auto progress = request.phase("batches (ranking, then each curve)");

    // The order: read from a CSV, or ranked on --rank-text, or on the curves' own data.
    std::string ranked_on;
    const auto orders = requested_orders(request, loaded, data, order_name, pruned_blocks, progress, ranked_on);
    if (orders.empty()) {
      AnalysisReport cancelled;
      return cancelled.cancelled = true, cancelled;
    }
    // --apply prunes once by one order and draws no curve.
    if (apply)
      return apply_pruning(loaded, data, orders.back().name, orders.back().heads, settings.integer("apply"),
                           settings.text("save"));
    auto result = pruning_curves(*loaded.model, loaded.name, data, orders, static_cast<double>(settings.integer("step")),
                                 progress, significance_options(settings));
    AnalysisReport report;
    if (result.cancelled) return report.cancelled = true, report;
    if (loaded.config.is_translation()) result.attention = attention;
    result.ranked_on = ranked_on;
    report.csv["csv"] = pruning_csv(result);
    report.json = pruning_json(result);
    report.result = std::move(result);
    return report;
  };
  return descriptor;
}

}  // namespace aw
