// analysis/circuits/composition_descriptor.cpp — `composition`: Q-, K- and V-composition of every
// pair of heads in layers l₁ < l₂ from the weights alone, each also as a multiple of the same score's
// mean for random matrices of the same shapes; per head the copying score, the preferred offset of
// the QK circuit (models with a position table) and its mean composition out of and into it
// (composition.h, docs/circuits.md).
#include "analysis/circuits/composition.h"
#include "analysis/core/attention_blocks.h"
#include "analysis/core/registry.h"
#include "analysis/core/setting_fields.h"
#include "models/errors.h"

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

constexpr int64_t kDefaultDraws = 1000;
constexpr int64_t kDefaultSpan = 64;

// The chance baselines: one per pair of head widths (receiver, sender) the pairs have; a translation
// model's encoder and decoder heads may differ in width.
struct Chances {
  std::map<std::pair<int64_t, int64_t>, ChanceBaseline> by_widths;
  std::vector<int64_t> widths;  // per block
  const ChanceBaseline& of(const CompositionPair& pair) const {
    return by_widths.at({widths[pair.receiver_layer], widths[pair.sender_layer]});
  }
  // The first block's heads into heads as wide (a one-stack model's only one; a translation model's
  // encoder's): the metadata's chance_mean.
  const ChanceBaseline& first() const { return by_widths.at({widths[0], widths[0]}); }
};
Chances chances(const ModelConfig& config, const std::vector<CompositionPair>& pairs, int64_t draws, uint64_t seed) {
  Chances result;
  for (int64_t block = 0; block < config.n_blocks; ++block) result.widths.push_back(config.head_width(block));
  std::vector<std::pair<int64_t, int64_t>> keys{{result.widths[0], result.widths[0]}};
  for (const auto& pair : pairs) keys.emplace_back(result.widths[pair.receiver_layer], result.widths[pair.sender_layer]);
  for (const auto& key : keys)
    if (!result.by_widths.count(key))
      result.by_widths[key] = composition_baseline(config.d_model, key.first, key.second, draws, seed);
  return result;
}

// Mean multiple of chance of each head's composition out of it (into every later head that reads its
// stream) and into it (from every earlier head), per kind q, k, v: [block][head][kind]; NaN where none.
struct HeadMeans {
  std::vector<std::vector<std::array<double, 3>>> out, in;
};
HeadMeans head_means(const std::vector<CompositionPair>& pairs, const std::vector<int64_t>& heads_per_layer,
                     const Chances& chances) {
  using Triple = std::array<double, 3>;
  HeadMeans means;
  std::vector<std::vector<Triple>> out_count, in_count;
  for (const auto h : heads_per_layer) {
    for (auto* side : {&means.out, &means.in, &out_count, &in_count}) side->emplace_back(h, Triple{0, 0, 0});
  }
  for (const auto& pair : pairs) {
    const double chance = chances.of(pair).mean;
    const Triple scores{pair.q / chance, pair.k / chance, pair.v / chance};
    for (int kind = 0; kind < 3; ++kind) {
      if (std::isnan(scores[kind])) continue;  // this receiver does not read the sender's stream that way
      means.out[pair.sender_layer][pair.sender_head][kind] += scores[kind];
      means.in[pair.receiver_layer][pair.receiver_head][kind] += scores[kind];
      ++out_count[pair.sender_layer][pair.sender_head][kind];
      ++in_count[pair.receiver_layer][pair.receiver_head][kind];
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t l = 0; l < heads_per_layer.size(); ++l)
    for (size_t h = 0; h < means.out[l].size(); ++h)
      for (int kind = 0; kind < 3; ++kind) {
        const double outs = out_count[l][h][kind], ins = in_count[l][h][kind];
        means.out[l][h][kind] = outs > 0 ? means.out[l][h][kind] / outs : nan;
        means.in[l][h][kind] = ins > 0 ? means.in[l][h][kind] / ins : nan;
      }
  return means;
}

void describe_chance(ResultTable& table, const Chances& chances, int64_t seed) {
  const auto& chance = chances.first();
  table.meta("chance_mean", chance.mean).meta("chance_sd", chance.sd);
  table.meta("chance_p95", chance.quantile(0.95)).meta("chance_p99", chance.quantile(0.99));
  table.meta("chance_draws", static_cast<int64_t>(chance.sorted.size())).meta("seed", seed);
  if (chances.by_widths.size() > 1) {
    std::string text;
    for (const auto& [widths, baseline] : chances.by_widths)
      text += (text.empty() ? "" : "; ") + std::string("receiver dh ") + std::to_string(widths.first) + " sender dh " +
              std::to_string(widths.second) + ": " + cell_text(baseline.mean);
    table.meta("chance_mean_by_widths", text);
  }
}

Cell number_or_blank(double value) { return std::isnan(value) ? Cell{} : cell(value); }

// The columns naming a head: kind (translation models), layer, head, each with `prefix`.
void add_head_columns(ResultTable& table, const BlockNames& names, const std::string& prefix) {
  if (names.with_kind) table.add_column(prefix + "kind", ColumnType::Text);
  table.add_column(prefix + "layer", ColumnType::Integer).add_column(prefix + "head", ColumnType::Integer);
}
void add_head_cells(std::vector<Cell>& row, const BlockNames& names, int64_t block, int64_t head) {
  for (auto& value : names.cells(block)) row.push_back(std::move(value));
  row.push_back(cell(head + 1));
}

ResultTable pairs_table(const std::vector<CompositionPair>& pairs, const Chances& chances, const BlockNames& names) {
  ResultTable table;
  add_head_columns(table, names, "sender_");
  add_head_columns(table, names, "receiver_");
  for (const char* name : {"q", "k", "v", "q_chance", "k_chance", "v_chance"}) table.add_column(name, ColumnType::Number);
  for (const auto& p : pairs) {
    const double chance = chances.of(p).mean;
    std::vector<Cell> row;
    add_head_cells(row, names, p.sender_layer, p.sender_head);
    add_head_cells(row, names, p.receiver_layer, p.receiver_head);
    for (const double value : {p.q, p.k, p.v, p.q / chance, p.k / chance, p.v / chance}) row.push_back(number_or_blank(value));
    table.add_row(std::move(row));
  }
  return table;
}

ResultTable heads_table(const std::vector<HeadCircuit>& heads, const HeadMeans& means, const BlockNames& names) {
  ResultTable table;
  add_head_columns(table, names, "");
  table.add_column("copying", ColumnType::Number).add_column("positive_share", ColumnType::Number);
  table.add_column("positional_offset", ColumnType::Integer).add_column("positional_weight", ColumnType::Number);
  for (const char* name : {"q_out", "k_out", "v_out", "q_in", "k_in", "v_in"}) table.add_column(name, ColumnType::Number);
  for (const auto& head : heads) {
    std::vector<Cell> row;
    add_head_cells(row, names, head.layer, head.head);
    for (const double value : {head.copying, head.positive_share}) row.push_back(number_or_blank(value));
    if (head.has_positional) row.insert(row.end(), {cell(head.positional_offset), cell(head.positional_weight)});
    else row.insert(row.end(), {Cell{}, Cell{}});
    for (const auto* side : {&means.out, &means.in})
      for (const double value : (*side)[head.layer][head.head]) row.push_back(number_or_blank(value));
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
  const auto chance = chances(config, pairs, draws, static_cast<uint64_t>(seed));
  const auto heads = head_circuits(weights, settings.integer("span"), config.causal);
  const auto means = head_means(pairs, config.heads_per_block, chance);
  const auto names = block_names(config);

  auto table = pairs_table(pairs, chance, names);
  table.meta("model", loaded.name);
  describe_chance(table, chance, seed);
  table.meta("folded", weights.folded);
  if (config.positions == PositionKind::Rotary)
    table.meta("rotary", "QK read at offset 0: W_Q^T W_K without the rotation (it depends on the offset)");
  if (config.is_translation()) {
    table.meta("encoder_layers", config.translation.encoder_layers);
    table.meta("streams", "enc heads compose with later enc heads and with cross-attention's keys and values; dec "
                          "and cross heads with later dec heads and with cross-attention's queries");
  }
  auto per_head = heads_table(heads, means, names);
  per_head.meta("model", loaded.name);
  per_head.meta("chance_mean", chance.first().mean);
  const bool positional = weights.positions.defined() || weights.decoder_positions.defined();
  per_head.meta("span", positional ? settings.integer("span") : int64_t{0});
  report.tables["csv"] = std::move(table);
  report.tables["heads"] = std::move(per_head);
  HeadScores scores{"K-composition out (× chance)", {}, 1, 0};
  for (const auto& layer : means.out) {
    scores.values.emplace_back();
    for (const auto& head : layer) scores.values.back().push_back(head[1]);  // NaN: no later head (left blank)
  }
  report.head_scores = std::move(scores);
  report.description = loaded.name + ": " + std::to_string(pairs.size()) + " pairs of heads; chance " +
                       std::to_string(chance.first().mean);
  return report;
}

}  // namespace

AnalysisDescriptor composition_descriptor() {
  AnalysisDescriptor descriptor("composition", "Composition",
                                "Elhage et al. 2021: Q-, K- and V-composition of every pair of heads from the "
                                "weights, as multiples of chance; each head's copying score and positional pattern");
  descriptor.models = ModelRequirement::TokenAttention;
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
