// analysis/circuits/edge_attribution_descriptor.cpp — `eap`: edge attribution patching (EAP) or, with
// --steps k > 1, EAP-IG on the `patch` pairs: every edge of the head/MLP graph scored, then circuits of
// the top edges and their faithfulness with a bootstrap interval over pairs.
#include "analysis/circuits/circuit_faithfulness.h"
#include "analysis/circuits/circuit_selection.h"
#include "analysis/circuits/edge_attribution.h"
#include "analysis/core/gate_settings.h"
#include "analysis/core/head_gates.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "analysis/core/shared_settings.h"
#include "analysis/patching/head_patching.h"
#include "analysis/patching/restored_shares.h"
#include "analysis/statistics/delta_significance.h"
#include "analysis/statistics/significance.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/parse_number.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

namespace aw {
namespace {

// --sizes: the circuits' sizes in edges; empty: 1, 2, 4, … below the graph's edges, and every edge.
std::vector<int64_t> circuit_sizes(const std::string& text, int64_t edges) {
  std::vector<int64_t> sizes;
  if (text.empty()) {
    for (int64_t size = 1; size < edges; size *= 2) sizes.push_back(size);
    sizes.push_back(edges);
    return sizes;
  }
  for (const auto& item : split_list(text)) {
    int64_t size = 0;
    if (!parse_integer(item, size) || size < 1) throw SettingError("sizes", "'" + item + "' is not a number of edges (1 or more)");
    if (size > edges)
      throw SettingError("sizes", "'" + item + "' is more edges than the model's graph has (" + std::to_string(edges) + ")");
    sizes.push_back(size);
  }
  if (sizes.empty()) throw SettingError("sizes", "names no size");
  return sizes;
}

AnalysisReport run_eap(const AnalysisRequest& request) {
  AnalysisReport report;
  const auto& settings = request.settings;
  const auto& loaded = *request.models.front();
  const auto path = settings.required_text("pairs");
  const auto graph = edge_graph(loaded.config);  // refuses a model without one before the pairs are read
  const auto edges = graph.edge_count();
  const auto sizes = circuit_sizes(settings.text("sizes"), edges);
  const auto selection = settings.text("select");
  const auto chosen_by = circuit_selection_named(selection);  // the field has checked the name
  const auto pairs = read_model_pairs(path, loaded);
  EdgeAttributionSettings attribution;
  attribution.steps = settings.integer("steps");
  attribution.batch = settings.integer("batch");
  attribution.gates = request_gates(request, 0);
  const auto significance =
      significance_for_units(significance_options(settings), "pairs", static_cast<int64_t>(pairs.size()), request.note);
  const auto scored = edge_attribution(*loaded.model, pairs, attribution, request.phase(loaded.name + ": scores"));
  if (scored.cancelled) return report.cancelled = true, report;
  require_restorable(path, scored.clean, scored.corrupted);
  std::vector<torch::Tensor> circuits;
  for (const auto size : sizes) circuits.push_back(circuit_edges(loaded.config, scored.graph, scored.scores, size, chosen_by));
  const auto runs = circuit_runs(*loaded.model, pairs, scored.graph, circuits, attribution.batch, attribution.gates,
                                 request.phase(loaded.name + ": circuits"));
  if (runs.cancelled) return report.cancelled = true, report;

  // Faithfulness of each circuit, Σ(m_C − m_x) / Σ(m_c − m_x), and its bootstrap interval over pairs.
  const auto restored = scored.clean - scored.corrupted;                 // [P]
  const auto gains = (runs.patched - scored.corrupted.unsqueeze(0)).t();  // [P, C]
  const auto shares = restored_shares(gains, restored, significance);
  const auto& faithfulness = shares.share;
  const auto& intervals = shares.intervals;
  const auto& refused = shares.refused;

  const auto clean_mean = scored.clean.mean().item<double>(), corrupted_mean = scored.corrupted.mean().item<double>();
  const std::string method = attribution.steps == 1 ? "EAP" : "EAP-IG, " + std::to_string(attribution.steps) + " steps";
  ResultTable table, circuit_table;
  for (auto* each : {&table, &circuit_table}) {
    each->meta("model", loaded.name).meta("method", method);
    each->meta("metric", loaded.config.is_translation() ? "logit(answer) - logit(foil) for the token after the translation"
                                                        : "logit(answer) - logit(foil) at the last position");
    each->meta("clean_mean", clean_mean).meta("corrupted_mean", corrupted_mean);
    each->meta("pairs", static_cast<int64_t>(pairs.size()));
    each->meta("data", std::filesystem::path(path).filename().string());
    each->meta("edges", edges);
  }
  table.meta("score", "mean over pairs of (a_u corrupted - a_u clean) . dm/d(receiver input): m with the edge corrupted - m clean, linearised");
  table.meta("share", "score / (corrupted_mean - clean_mean)");
  table.add_column("rank", ColumnType::Integer).add_column("sender", ColumnType::Text);
  table.add_column("receiver", ColumnType::Text).add_column("score", ColumnType::Number);
  table.add_column("share", ColumnType::Number).add_column("circuit", ColumnType::Integer);
  table.meta("circuit", "the smallest circuit size asked whose circuit holds the edge (empty: none)");
  // The smallest size whose circuit holds each edge ([U·V], 0: none), from the largest circuit down.
  auto smallest = torch::zeros({scored.scores.numel()}, torch::kLong);
  std::vector<size_t> by_size(sizes.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  for (const auto c : by_size) smallest.masked_fill_(circuits[c].flatten(), sizes[c]);
  const auto smallest_values = smallest.accessor<int64_t, 1>();
  const auto magnitude = scored.scores.abs().nan_to_num(-1.0).flatten();
  const auto order = std::get<1>(torch::sort(magnitude, /*stable=*/true, /*dim=*/0, /*descending=*/true));
  const auto v_count = scored.scores.size(1);
  const auto flat = scored.scores.flatten().contiguous();
  const auto order_values = order.accessor<int64_t, 1>();
  const auto score_values = flat.accessor<double, 1>();
  HeadScores head_scores{"attribution out (sum |score|)", {}, 1, 0};
  for (const auto heads : loaded.config.heads_per_block) head_scores.values.emplace_back(heads, 0.0);
  for (int64_t rank = 0; rank < edges; ++rank) {
    const auto index = order_values[rank];
    const auto& sender = scored.graph.senders[index / v_count];
    const auto score = score_values[index];
    table.add_row({cell(rank + 1), cell(sender_label(sender, loaded.config)),
                   cell(receiver_label(scored.graph.receivers[index % v_count], loaded.config)),
                   cell(score), cell(score / (corrupted_mean - clean_mean)),
                   smallest_values[index] > 0 ? cell(smallest_values[index]) : Cell{}});
    if (sender.kind == SenderKind::Head) head_scores.values[sender.layer][sender.head] += std::abs(score);
  }
  add_significance_meta(circuit_table, significance);
  if (!refused.empty()) circuit_table.meta("intervals", refused);
  circuit_table.meta("select", selection == "top" ? "the edges of largest |score|"
                                                  : "greedy from the logits: the edge of largest |score| into the circuit");
  circuit_table.meta("faithfulness", "sum(m_circuit - m_corrupted) / sum(m_clean - m_corrupted), every edge outside the "
                                     "circuit fed its sender's corrupted write");
  circuit_table.add_column("edges", ColumnType::Integer).add_column("share_of_edges", ColumnType::Number);
  circuit_table.add_column("faithfulness", ColumnType::Number);
  if (!intervals.empty()) circuit_table.add_column("low", ColumnType::Number).add_column("high", ColumnType::Number);
  circuit_table.add_column("patched_mean", ColumnType::Number);
  for (size_t c = 0; c < sizes.size(); ++c) {
    const auto value = faithfulness[static_cast<int64_t>(c)].item<double>();
    std::vector<Cell> row{cell(sizes[c]), cell(static_cast<double>(sizes[c]) / static_cast<double>(edges)), cell(value)};
    if (!intervals.empty()) append_cells(row, {intervals[c].low, intervals[c].high});
    row.push_back(cell(runs.patched[static_cast<int64_t>(c)].mean().item<double>()));
    circuit_table.add_row(std::move(row));
  }
  report.tables["csv"] = std::move(table);
  report.tables["circuits"] = std::move(circuit_table);
  report.head_scores = std::move(head_scores);
  if (!refused.empty()) request.tell(refused);
  report.description = loaded.name + ": " + std::to_string(edges) + " edges over " + std::to_string(pairs.size()) +
                       " pairs (" + method + ")";
  return report;
}

}  // namespace

AnalysisDescriptor eap_descriptor() {
  AnalysisDescriptor descriptor("eap", "Edge attribution",
                                "Syed et al. 2023, Hanna et al. 2024: every edge between heads, MLPs, the input and the "
                                "logits scored from one forward and backward (EAP) or k (EAP-IG); circuits of the top "
                                "edges and their faithfulness");
  descriptor.models = ModelRequirement::CausalAttention;
  descriptor.fields = {
      path_field("pairs", "Pairs", true,
                 "clean<TAB>corrupted<TAB>answer<TAB>foil lines (answer and foil one token each); a translation model's "
                 "clean source<TAB>corrupted source<TAB>translation<TAB>answer<TAB>foil"),
      integer_field("steps", "Steps", 1, 1, 1024, "1: EAP (the gradient on the clean run); k > 1: EAP-IG, the gradient "
                                                  "averaged over k inputs from corrupted to clean", "K"),
      text_field("sizes", "Circuit sizes", "",
                 "circuits of the top edges whose faithfulness is measured, in edges (default 1, 2, 4, ... and every "
                 "edge)", "LIST"),
      choice_field("select", "Selection", {"greedy", "top"}, "greedy",
                   "how a circuit's edges are chosen: greedy from the logits (each edge reaches them) or the top |score|"),
      integer_field("batch", "Batch", 8, 1, 1 << 20, "pairs per forward", "B")};
  append_fields(descriptor.fields, significance_fields());
  descriptor.fields.push_back(heads_off_field());
  descriptor.plot = "circuit-faithfulness";
  descriptor.outputs.push_back({"circuits-out", "circuits", "each circuit's faithfulness with its interval (CSV)"});
  descriptor.tab.order = 59;
  descriptor.tab.group = "Circuits";
  descriptor.tab.score_label = "attribution out";
  descriptor.tab.other_tables = {{"circuits", "circuits' faithfulness"}};
  descriptor.tab.description =
      "<b>Edge attribution</b> (Syed et al. 2023; Hanna et al. 2024). Every edge from the input, a head or an MLP to a "
      "later head's query, key or value, an MLP or the logits is scored by how much corrupting it alone would change "
      "the logit difference answer − foil, to first order: the sender's corrupted − clean write times the gradient at "
      "the receiver's own input (EAP), or that gradient averaged from corrupted to clean inputs (EAP-IG). The top "
      "edges form circuits whose faithfulness is measured by running the clean prompt with every other edge fed the "
      "corrupted write. Definitions: docs/circuits.md.";
  descriptor.run = run_eap;
  return descriptor;
}

}  // namespace aw
