// analysis/circuits/path_patch_descriptor.cpp — `path-patch`: path patching (path_patching.h) from
// every head to the logits and to the q, k and v inputs of the receiver layers asked, on the `patch`
// pairs; each path's normalised effect with a bootstrap interval over pairs, p-values corrected across
// every path of the table.
#include "analysis/circuits/path_patching.h"
#include "analysis/circuits/translation_path_patching.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/core/shared_settings.h"
#include "analysis/patching/head_patching.h"
#include "analysis/patching/restored_shares.h"
#include "analysis/statistics/delta_significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <cmath>
#include <filesystem>

namespace aw {
namespace {

// "2.3" → (block 1, head 2), 0-based; a translation model's "cross2.3" → (its second cross-attention
// block, head 2). Throws SettingError naming `field` otherwise.
std::pair<int64_t, int64_t> head_named(const std::string& text, const std::string& field, const ModelConfig& config) {
  const auto digits = text.find_first_of("0123456789");
  const auto kind_text = text.substr(0, std::min(digits, text.size()));
  const auto dot = text.find('.');
  int64_t layer = 0, head = 0;
  const bool translation = config.is_translation();
  const auto example = translation ? "kind, layer.head from 1: \"enc2.3\", \"dec1.2\", \"cross1.4\"" : "layer.head from 1: \"2.3\"";
  if (dot == std::string::npos || !parse_integer(text.substr(kind_text.size(), dot - kind_text.size()), layer) ||
      !parse_integer(text.substr(dot + 1), head) || layer < 1 || head < 1 || (!translation && !kind_text.empty()))
    throw SettingError(field, "'" + text + "' is not a head (" + example + ")");
  if (!translation) return {layer - 1, head - 1};
  const auto kind = parse_attention_kind(kind_text);
  if (!kind) throw SettingError(field, "'" + text + "' is not a head (" + example + ")");
  const auto block = config.block_index(*kind, layer - 1);
  if (block < 0) throw SettingError(field, "'" + text + "': the model has no " + kind_text + " layer " + std::to_string(layer));
  return {block, head - 1};
}

// "1.3+1.1": heads of one block.
std::pair<int64_t, std::vector<int64_t>> head_set(const std::string& text, const std::string& field,
                                                  const ModelConfig& config) {
  int64_t layer = -1;
  std::vector<int64_t> heads;
  size_t start = 0;
  while (start <= text.size()) {
    const auto plus = std::min(text.find('+', start), text.size());
    const auto [l, h] = head_named(text.substr(start, plus - start), field, config);
    if (layer >= 0 && l != layer)
      throw SettingError(field, "'" + text + "' spreads over " + (config.is_translation() ? "blocks " : "layers ") +
                                    block_name(config, layer) + " and " + block_name(config, l) + ": a set's heads share " +
                                    (config.is_translation() ? "a block" : "a layer"));
    layer = l;
    heads.push_back(h);
    start = plus + 1;
  }
  return {layer, heads};
}

std::vector<PathSender> parse_senders(const std::string& text, const ModelConfig& config) {
  std::vector<PathSender> senders;
  for (const auto& item : split_list(text)) {
    auto [layer, heads] = head_set(item, "senders", config);
    senders.push_back({layer, heads});
  }
  return senders;
}

// A receiving block named by its layer ("2") or a translation model's kind and layer ("cross2"); −1 for
// anything else.
int64_t receiving_block(const std::string& item, const ModelConfig& config) {
  const auto digits = item.find_first_of("0123456789");
  if (digits == std::string::npos) return -1;
  int64_t layer = 0;
  if (!parse_integer(item.substr(digits), layer) || layer < 1) return -1;
  if (!config.is_translation()) return digits == 0 && layer <= config.n_blocks ? layer - 1 : -2;
  const auto kind = parse_attention_kind(item.substr(0, digits));
  if (!kind) return -1;
  const auto block = config.block_index(*kind, layer - 1);
  return block < 0 ? -2 : block;
}

std::vector<PathReceiver> parse_receivers(const std::string& text, const LoadedModel& loaded) {
  std::vector<PathReceiver> receivers;
  const auto& config = loaded.config;
  const auto layers = config.n_blocks;
  const bool translation = config.is_translation();
  for (const auto& item : split_list(text)) {
    const auto colon = item.find(':');
    const auto block = item == "logits" ? -1 : receiving_block(item, config);
    if (item == "logits") {
      receivers.push_back({});
    } else if (block == -2 && !translation) {
      throw SettingError("receivers", "layer " + item + ": receivers are layers 2 to " + std::to_string(layers) +
                                          " (layer 1 has no earlier heads)");
    } else if (block == -2) {
      throw SettingError("receivers", "'" + item + "': the model has no such block");
    } else if (block >= 0) {
      if (!translation && block == 0)
        throw SettingError("receivers", "layer " + item + ": receivers are layers 2 to " + std::to_string(layers) +
                                            " (layer 1 has no earlier heads)");
      const auto before = receivers.size();
      // A translation model's block: the inputs some earlier head writes to (encoder 1 and decoder 1: none).
      for (const auto& each : layer_receivers(config, block))
        if (has_senders(config, each)) receivers.push_back(each);
      if (receivers.size() == before)
        throw SettingError("receivers", "'" + item + "' has no earlier heads writing the stream it reads");
    } else if (colon != std::string::npos && (item.substr(0, colon) == "q" || item.substr(0, colon) == "k" ||
                                              item.substr(0, colon) == "v")) {
      const auto kind = item[0] == 'q' ? PathKind::Query : item[0] == 'k' ? PathKind::Key : PathKind::Value;
      auto [set_layer, heads] = head_set(item.substr(colon + 1), "receivers", config);
      receivers.push_back({kind, set_layer, heads});
    } else {
      throw SettingError("receivers", "'" + item + "' is neither logits, a " + (translation ? "block (\"cross2\")" : "layer") +
                                          ", nor q:, k: or v: with heads (" +
                                          (translation ? "\"k:cross1.1+cross1.3\")" : "\"k:2.1+2.3\")"));
    }
  }
  if (receivers.empty()) throw SettingError("receivers", "names no receiver");
  return receivers;
}

// The paths a sender has to its receiver (before it, in the stream it reads): (sender index, receiver index).
std::vector<std::pair<int64_t, int64_t>> measured_paths(const PathPatchResult& result, const ModelConfig& config) {
  std::vector<std::pair<int64_t, int64_t>> paths;
  for (size_t s = 0; s < result.senders.size(); ++s)
    for (size_t r = 0; r < result.receivers.size(); ++r)
      if (path_exists(config, result.senders[s], result.receivers[r]))
        paths.emplace_back(static_cast<int64_t>(s), static_cast<int64_t>(r));
  return paths;
}

AnalysisReport run_path_patch(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& settings = request.settings;
  const auto& loaded = *request.models.front();
  const auto path = settings.required_text("pairs");
  check_path_patch(loaded.config, {});  // the model first: a post-norm model is refused whatever the pairs
  const auto pairs = read_model_pairs(path, loaded);
  PathPatchSettings patch;
  patch.senders = parse_senders(settings.text("senders"), loaded.config);
  patch.receivers = parse_receivers(settings.text("receivers"), loaded);
  patch.batch = settings.integer("batch");
  patch.rows = settings.integer("rows");
  patch.gates = request_gates(request, 0);
  check_path_patch(loaded.config, patch);
  const auto significance =
      significance_for_units(significance_options(settings), "pairs", static_cast<int64_t>(pairs.size()), request.note);
  const auto result = path_patch(*loaded.model, pairs, patch, request.phase(loaded.name + ": pair batches"));
  if (result.cancelled) return report.cancelled = true, report;
  require_restorable(path, result.clean, result.corrupted);
  const auto restored = result.clean - result.corrupted;  // [P]

  const auto paths = measured_paths(result, loaded.config);
  if (paths.empty()) throw Error(loaded.name + ": no sender has a path to these receivers");
  std::vector<torch::Tensor> gained;
  for (const auto& [s, r] : paths) gained.push_back(result.patched[s][r] - result.corrupted);
  const auto gains = torch::stack(gained, 1);  // [P, K]
  const auto shares = restored_shares(gains, restored, significance);
  const auto& effect = shares.share;
  const auto& refused = shares.refused;
  std::vector<DeltaSignificance> intervals;
  if (!shares.intervals.empty()) intervals = corrected_significance(shares.intervals, significance);

  ResultTable table;
  table.meta("model", loaded.name);
  table.meta("metric", loaded.config.is_translation()
                           ? "logit(answer) - logit(foil) for the token after the translation"
                           : "logit(answer) - logit(foil) at the last position");
  table.meta("clean_mean", result.clean.mean().item<double>());
  table.meta("corrupted_mean", result.corrupted.mean().item<double>());
  add_significance_meta(table, significance);
  if (!refused.empty()) table.meta("intervals", refused);
  if (loaded.config.decoder.grouped_query) table.meta("k_v_receivers", "key/value heads (each serves its group's query heads)");
  table.meta("pairs", static_cast<int64_t>(pairs.size()));
  table.meta("data", std::filesystem::path(path).filename().string());
  table.add_column("sender", ColumnType::Text).add_column("receiver", ColumnType::Text);
  table.add_column("input", ColumnType::Text).add_column("effect", ColumnType::Number);
  if (!intervals.empty()) {
    for (const char* name : {"effect_low", "effect_high", "p_value", "p_adjusted"}) table.add_column(name, ColumnType::Number);
    table.add_column("significant", ColumnType::Integer);
  }
  const auto effects = effect.accessor<double, 1>();
  HeadScores scores{"path effect to the logits", {}, 1, 0};
  for (const auto heads : loaded.config.heads_per_block) scores.values.emplace_back(heads, 0.0);
  bool scored = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    const auto& sender = result.senders[paths[i].first];
    const auto& receiver = result.receivers[paths[i].second];
    const bool logits = receiver.kind == PathKind::Logits;
    std::vector<Cell> row{cell(sender_name(sender, loaded.config)), cell(receiver_heads_name(receiver, loaded.config)),
                          logits ? Cell{} : cell(path_kind_name(receiver.kind)), cell(effects[static_cast<int64_t>(i)])};
    if (!intervals.empty()) {
      const auto& e = intervals[i].holding(effects[static_cast<int64_t>(i)]);
      append_cells(row, {e.low, e.high, e.p_value, e.p_adjusted, static_cast<int64_t>(e.significant)});
    }
    table.add_row(std::move(row));
    if (logits && sender.heads.size() == 1) {
      scores.values[sender.layer][sender.heads.front()] = effects[static_cast<int64_t>(i)];
      scored = true;
    }
  }
  report.tables["csv"] = std::move(table);
  if (scored) report.head_scores = std::move(scores);
  if (!refused.empty()) request.tell(refused);
  report.description = loaded.name + ": " + std::to_string(paths.size()) + " paths over " + std::to_string(pairs.size()) +
                       " pairs";
  return report;
}

}  // namespace

AnalysisDescriptor path_patch_descriptor() {
  AnalysisDescriptor descriptor("path-patch", "Path patching",
                                "Wang et al. 2022: each head's clean output reaching only the logits or a later "
                                "head's query, key or value, everything else corrupted (normalised effect, bootstrap "
                                "interval)");
  descriptor.models = ModelRequirement::CausalAttention;
  descriptor.fields = {
      path_field("pairs", "Pairs", true,
                 "clean<TAB>corrupted<TAB>answer<TAB>foil lines (answer and foil one token each); a translation model's "
                 "clean source<TAB>corrupted source<TAB>translation<TAB>answer<TAB>foil"),
      text_field("senders", "Senders", "",
                 "heads, or sets of one layer's heads sent together: \"1.3,1.1+1.3\" (a translation model's by kind: "
                 "\"enc1.3,cross2.1\"; default every head alone)", "LIST"),
      text_field("receivers", "Receivers", "logits",
                 "logits; a layer (from 2; a translation model's block: \"cross2\"): each of its heads' q, k and v "
                 "inputs alone; or q:, k: or v: with a set of one layer's heads received together: "
                 "\"logits,2,k:2.1+2.3+2.4\"", "LIST"),
      integer_field("batch", "Batch", 8, 1, 1 << 20, "pairs per group of forwards", "B"),
      integer_field("rows", "Rows", 256, 1, 1 << 24, "rows per forward of the patched runs (paths × pairs)", "R")};
  append_fields(descriptor.fields, significance_fields());
  descriptor.fields.push_back(heads_off_field());
  descriptor.tab.order = 58;
  descriptor.tab.group = "Circuits";
  descriptor.tab.score_label = "path effect to logits";
  descriptor.tab.description =
      "<b>Path patching</b> (Wang et al. 2022; Goldowsky-Dill et al. 2023). For each sender head and receiver — the "
      "logits, or a later head's query, key or value input — the corrupted prompt is run with only that path carrying "
      "the sender's clean output: the receiver reads the corrupted residual stream plus the sender's change, and "
      "every other path stays corrupted. The effect is the share of the logit difference answer − foil it restores, "
      "(patched − corrupted) / (clean − corrupted) over all pairs, with a bootstrap interval. Definitions: "
      "docs/circuits.md.";
  descriptor.run = run_path_patch;
  return descriptor;
}

}  // namespace aw
