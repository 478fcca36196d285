// analysis/circuits/composition_descriptor.cpp — `composition`: Q-, K- and V-composition of every
// pair of heads in layers l₁ < l₂ from the weights alone, each also as a multiple of the same score's
// mean for random matrices of the same shapes; per head the copying score, the preferred offset of
// the QK circuit (models with a position table) and its mean composition out of and into it
// (composition.h, docs/circuits.md).
#include "analysis/circuits/composition.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "models/errors.h"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace aw {
namespace {

constexpr int64_t kDefaultDraws = 1000;
constexpr int64_t kDefaultSpan = 64;

// Mean multiple of chance of each head's composition out of it (into every later head) and into it
// (from every earlier head), per kind q, k, v: [layer][head][kind].
struct HeadMeans {
  std::vector<std::vector<std::array<double, 3>>> out, in;
};
HeadMeans head_means(const std::vector<CompositionPair>& pairs, const std::vector<int64_t>& heads_per_layer,
                     double chance) {
  HeadMeans means;
  std::vector<std::vector<int64_t>> out_count, in_count;
  for (const auto h : heads_per_layer) {
    means.out.emplace_back(h, std::array<double, 3>{0, 0, 0});
    means.in.emplace_back(h, std::array<double, 3>{0, 0, 0});
    out_count.emplace_back(h, 0);
    in_count.emplace_back(h, 0);
  }
  for (const auto& pair : pairs) {
    const std::array<double, 3> scores{pair.q / chance, pair.k / chance, pair.v / chance};
    auto& out = means.out[pair.sender_layer][pair.sender_head];
    auto& in = means.in[pair.receiver_layer][pair.receiver_head];
    for (int kind = 0; kind < 3; ++kind) out[kind] += scores[kind], in[kind] += scores[kind];
    ++out_count[pair.sender_layer][pair.sender_head];
    ++in_count[pair.receiver_layer][pair.receiver_head];
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t l = 0; l < heads_per_layer.size(); ++l)
    for (size_t h = 0; h < means.out[l].size(); ++h)
      for (int kind = 0; kind < 3; ++kind) {
        means.out[l][h][kind] = out_count[l][h] ? means.out[l][h][kind] / static_cast<double>(out_count[l][h]) : nan;
        means.in[l][h][kind] = in_count[l][h] ? means.in[l][h][kind] / static_cast<double>(in_count[l][h]) : nan;
      }
  return means;
}

void describe_chance(ResultTable& table, const ChanceBaseline& chance, int64_t seed) {
  table.meta("chance_mean", chance.mean).meta("chance_sd", chance.sd);
  table.meta("chance_p95", chance.quantile(0.95)).meta("chance_p99", chance.quantile(0.99));
  table.meta("chance_draws", static_cast<int64_t>(chance.sorted.size())).meta("seed", seed);
}

ResultTable pairs_table(const std::vector<CompositionPair>& pairs, double chance) {
  ResultTable table;
  for (const char* name : {"sender_layer", "sender_head", "receiver_layer", "receiver_head"})
    table.add_column(name, ColumnType::Integer);
  for (const char* name : {"q", "k", "v", "q_chance", "k_chance", "v_chance"}) table.add_column(name, ColumnType::Number);
  for (const auto& p : pairs)
    table.row(p.sender_layer + 1, p.sender_head + 1, p.receiver_layer + 1, p.receiver_head + 1, p.q, p.k, p.v,
              p.q / chance, p.k / chance, p.v / chance);
  return table;
}

ResultTable heads_table(const std::vector<HeadCircuit>& heads, const HeadMeans& means) {
  ResultTable table;
  table.add_column("layer", ColumnType::Integer).add_column("head", ColumnType::Integer);
  table.add_column("copying", ColumnType::Number).add_column("positive_share", ColumnType::Number);
  table.add_column("positional_offset", ColumnType::Integer).add_column("positional_weight", ColumnType::Number);
  for (const char* name : {"q_out", "k_out", "v_out", "q_in", "k_in", "v_in"}) table.add_column(name, ColumnType::Number);
  for (const auto& head : heads) {
    std::vector<Cell> row{cell(head.layer + 1), cell(head.head + 1)};
    for (const double value : {head.copying, head.positive_share}) row.push_back(std::isnan(value) ? Cell{} : cell(value));
    if (head.has_positional) row.insert(row.end(), {cell(head.positional_offset), cell(head.positional_weight)});
    else row.insert(row.end(), {Cell{}, Cell{}});
    for (const auto* side : {&means.out, &means.in})
      for (const double value : (*side)[head.layer][head.head]) row.push_back(std::isnan(value) ? Cell{} : cell(value));
    table.add_row(std::move(row));
  }
  return table;
}

AnalysisReport run_composition(const AnalysisRequest& request) {
  const auto& loaded = *request.models.front();
  const auto& settings = request.settings;
  const auto weights = head_weights(loaded, "composition", 2, head_weights_dtype(loaded));
  const auto draws = settings.integer("chance-draws");
  const auto seed = settings.integer("seed");
  AnalysisReport report;
  bool cancelled = false;
  const auto pairs = composition_scores(weights, request.phase(loaded.name + ": receiver layers"), &cancelled);
  if (cancelled) return report.cancelled = true, report;
  const auto& config = loaded.config;
  const auto chance = composition_baseline(config.d_model, config.d_head, draws, static_cast<uint64_t>(seed));
  const auto heads = head_circuits(weights, settings.integer("span"), config.causal);
  const auto means = head_means(pairs, config.heads_per_block, chance.mean);

  auto table = pairs_table(pairs, chance.mean);
  table.meta("model", loaded.name);
  describe_chance(table, chance, seed);
  table.meta("folded", weights.folded);
  if (config.positions == PositionKind::Rotary)
    table.meta("rotary", "QK read at offset 0: W_Q^T W_K without the rotation (it depends on the offset)");
  auto per_head = heads_table(heads, means);
  per_head.meta("model", loaded.name);
  per_head.meta("chance_mean", chance.mean);
  per_head.meta("span", weights.positions.defined() ? settings.integer("span") : int64_t{0});
  report.tables["csv"] = std::move(table);
  report.tables["heads"] = std::move(per_head);
  HeadScores scores{"K-composition out (× chance)", {}, 1, 0};
  for (const auto& layer : means.out) {
    scores.values.emplace_back();
    for (const auto& head : layer) scores.values.back().push_back(head[1]);  // NaN: no later head (left blank)
  }
  report.head_scores = std::move(scores);
  report.description = loaded.name + ": " + std::to_string(pairs.size()) + " pairs of heads; chance " +
                       std::to_string(chance.mean);
  return report;
}

}  // namespace

AnalysisDescriptor composition_descriptor() {
  AnalysisDescriptor descriptor("composition", "Composition",
                                "Elhage et al. 2021: Q-, K- and V-composition of every pair of heads from the "
                                "weights, as multiples of chance; each head's copying score and positional pattern");
  descriptor.models = ModelRequirement::TokenSelfAttention;
  descriptor.data = DataKind::Sentences;
  descriptor.fields = {
      integer_field("chance-draws", "Chance draws", kDefaultDraws, 10, 1 << 20,
                    "random pairs of matrices of the model's shapes the chance baseline is drawn from", "N"),
      integer_field("seed", "Seed", 1, 0, int64_t{1} << 62, "the chance baseline's seed", "S"),
      integer_field("span", "Positions", kDefaultSpan, 2, 1 << 16,
                    "positions the QK circuit's positional pattern is read over (models with a position table)", "P")};
  descriptor.outputs.push_back({"heads-out", "heads", "per head: copying score, positional offset, mean composition "
                                                      "out and in (CSV)"});
  descriptor.tab.other_tables = {{"heads", "per head"}};
  descriptor.tab.order = 61;
  descriptor.tab.group = "Circuits";
  descriptor.tab.score_label = "K-comp out";
  descriptor.tab.description =
      "<b>Composition</b> (Elhage et al. 2021). From the weights alone, with the norms' weights folded in: how much "
      "each head's output is read by a later head's queries (Q), keys (K) and values (V), ‖W_QK² W_OV¹‖ / "
      "(‖W_QK²‖ ‖W_OV¹‖) and its analogues, and as a multiple of the same score for random matrices of the same "
      "shapes. Per head: the copying score of W_U W_OV W_E and, with a position table, the offset its QK circuit "
      "prefers. Definitions: docs/circuits.md.";
  descriptor.run = run_composition;
  return descriptor;
}

}  // namespace aw
