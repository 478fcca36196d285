// analysis/head_types/head_types.cpp — see head_types.h.
#include "analysis/head_types/head_types.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace aw {
namespace {

// Weights reduced at once: the float32 copy the mask products make stays at 16 MB, below the tile
// the model made, whatever the memory budget.
constexpr int64_t kReducedWeights = int64_t{1} << 22;

// Rows `rows` of a [B, H, rows, n] tile: each score's value per (sequence, head, row) and whether
// the row counts towards it, in kHeadTypes order.
struct RowScores {
  std::vector<torch::Tensor> values;   // [B, H, rows] float64 each
  std::vector<torch::Tensor> counted;  // [B, rows] float64 each (1 = the row counts)
};

RowScores row_scores(const torch::Tensor& probabilities, const torch::Tensor& ids, const torch::Tensor& valid,
                     int64_t first_row) {
  const int64_t count = probabilities.size(0), heads = probabilities.size(1), rows = probabilities.size(2),
                length = probabilities.size(3);
  const auto device = probabilities.device();
  const auto values = probabilities.scalar_type() == torch::kFloat64 ? probabilities : probabilities.to(torch::kFloat32);
  const auto long_options = torch::dtype(torch::kLong).device(device);
  const auto query = torch::arange(first_row, first_row + rows, long_options);                // (rows)
  const auto key = torch::arange(length, long_options);                                        // (n)
  const auto valid_rows = valid.narrow(1, first_row, rows);                                    // (B, rows)
  // One weight per row, picked by key index [B, rows]: the previous token, the row's own, the first.
  auto pick = [&](const torch::Tensor& index) {
    return values.gather(3, index.view({count, 1, rows, 1}).expand({count, heads, rows, 1})).squeeze(3);
  };
  const auto previous_key = (query - 1).clamp_min(0).unsqueeze(0).expand({count, rows});
  const auto first_key = valid.to(torch::kLong).argmax(1, true).expand({count, rows});
  const auto previous_valid = valid.index_select(1, (query - 1).clamp_min(0)) & query.ge(1).unsqueeze(0);
  // Earlier occurrences of the row's token (j < i), and the keys just after them (1 ≤ j ≤ i with
  // t[j − 1] = t[i]): [B, rows, n] masks, one matrix product for both.
  const auto row_ids = ids.narrow(1, first_row, rows).unsqueeze(2);                             // (B, rows, 1)
  const auto earlier = key.unsqueeze(0).lt(query.unsqueeze(1)).unsqueeze(0) & valid.unsqueeze(1);
  const auto duplicate = earlier & row_ids.eq(ids.unsqueeze(1));
  const auto shifted_ids = torch::cat({torch::full({count, 1}, -1, long_options),
                                       ids.narrow(1, 0, length - 1).masked_fill(valid.narrow(1, 0, length - 1).logical_not(), -1)},
                                      1);                                                      // t[j − 1], −1 at j = 0
  const auto induction = key.unsqueeze(0).le(query.unsqueeze(1)).unsqueeze(0) & valid.unsqueeze(1) &
                         row_ids.eq(shifted_ids.unsqueeze(1));
  const auto masks = torch::stack({duplicate, induction}, 3).to(values.scalar_type());          // (B, rows, n, 2)
  const auto masked = torch::einsum("bhrn,brnk->bhrk", {values, masks}).to(torch::kFloat64);   // (B, H, rows, 2)
  const auto has_earlier = duplicate.any(2) & valid_rows;
  // −Σ p ln p with p = 0 read as a tiny p (0 · ln 1e-30 = 0): on one chunk of 4M weights 2.7× faster
  // than xlogy on this CPU (2.6 ms against 7.2 ms), the same to float32 rounding.
  const auto entropy = -(values * values.clamp_min(1e-30).log()).sum(3);

  RowScores scores;
  scores.values = {pick(previous_key), masked.select(3, 0), masked.select(3, 1), pick(first_key), entropy,
                   pick(query.unsqueeze(0).expand({count, rows}))};
  for (auto& value : scores.values) value = value.to(torch::kFloat64);
  const auto all_rows = valid_rows.to(torch::kFloat64);
  scores.counted = {(valid_rows & previous_valid).to(torch::kFloat64), has_earlier.to(torch::kFloat64),
                    has_earlier.to(torch::kFloat64), all_rows, all_rows, all_rows};
  return scores;
}

}  // namespace

const std::array<const char*, kHeadTypes>& head_type_names() {
  static const std::array<const char*, kHeadTypes> names = {"previous_token", "duplicate_token", "induction",
                                                            "sink",           "entropy",         "self"};
  return names;
}

int head_type_index(const std::string& name) {
  const auto& names = head_type_names();
  for (int type = 0; type < kHeadTypes; ++type)
    if (name == names[type]) return type;
  return -1;
}

HeadTypeAccumulator::HeadTypeAccumulator(std::vector<int64_t> heads_per_layer, const torch::Device& device)
    : heads_per_layer_(std::move(heads_per_layer)) {
  const auto widest = heads_per_layer_.empty() ? 0 : *std::max_element(heads_per_layer_.begin(), heads_per_layer_.end());
  sums_ = torch::zeros({2, kHeadTypes, static_cast<int64_t>(heads_per_layer_.size()), widest},
                       torch::dtype(torch::kFloat64).device(device));
}

void HeadTypeAccumulator::add(int64_t layer, const torch::Tensor& probabilities, const torch::Tensor& ids,
                              const torch::Tensor& valid, int64_t first_row) {
  const int64_t heads = probabilities.size(1), rows = probabilities.size(2);
  const int64_t per_row = std::max<int64_t>(1, probabilities.size(0) * heads * probabilities.size(3));
  const int64_t chunk = std::max<int64_t>(1, kReducedWeights / per_row);
  if (rows > chunk) {  // a large tile: a few rows at a time (the sums do not care)
    for (int64_t first = 0; first < rows; first += chunk)
      add(layer, probabilities.narrow(2, first, std::min(chunk, rows - first)), ids, valid, first_row + first);
    return;
  }
  const auto scores = row_scores(probabilities, ids, valid, first_row);
  const std::vector<int64_t> sequences_and_rows = {0, 2};
  for (int type = 0; type < kHeadTypes; ++type) {
    const auto& counted = scores.counted[type];
    sums_[0][type][layer].narrow(0, 0, heads) += (scores.values[type] * counted.unsqueeze(1)).sum(sequences_and_rows);
    sums_[1][type][layer].narrow(0, 0, heads) += counted.sum();
  }
}

torch::Tensor head_type_sums(AttentionModel& model, const std::vector<ModelInput>& batches,
                             const ForwardOptions& forward, const ProgressCallback& progress) {
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const auto device = model.module().parameters().front().device();
  HeadTypeAccumulator sums(config.heads_per_block, device);
  torch::Tensor ids, valid;  // of the batch in flight, read by the observer
  ForwardOptions options = forward;
  options.capture = CaptureMode::Stats;
  options.tile_observer = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
    sums.add(layer, tile, ids, valid, first_row);
  };
  const auto total = static_cast<int64_t>(batches.size());
  for (int64_t index = 0; index < total; ++index) {
    const auto batch = batches[index].to(device);
    ids = batch.input_ids;
    valid = batch.attention_mask.defined() ? batch.attention_mask.ne(0) : torch::ones_like(ids, torch::kBool);
    // The layers alone: no score needs the logits.
    model.run_layers(model.embed(batch), batch, 0, config.n_blocks, options);
    if (!report_progress(progress, index + 1, total)) return {};
  }
  return sums.sums().cpu();
}

std::vector<HeadTypeScores> head_type_scores(const HeadTypeSources& sources, const std::vector<int64_t>& heads_per_layer) {
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const auto induction = static_cast<int>(HeadType::Induction);
  const auto corpus = sources.corpus.defined() ? sources.corpus.cpu().contiguous() : torch::Tensor();
  const auto generated = sources.generated.defined() ? sources.generated.cpu().contiguous() : torch::Tensor();
  std::vector<HeadTypeScores> heads;
  for (int64_t layer = 0; layer < static_cast<int64_t>(heads_per_layer.size()); ++layer)
    for (int64_t head = 0; head < heads_per_layer[layer]; ++head) {
      HeadTypeScores scores;
      scores.layer = layer + 1;
      scores.head = head + 1;
      for (int type = 0; type < kHeadTypes; ++type) {
        const bool from_generated = !corpus.defined() || (type == induction && generated.defined());
        const auto sums = (from_generated ? generated : corpus).accessor<double, 4>();
        const double sum = sums[0][type][layer][head], rows = sums[1][type][layer][head];
        scores.rows[type] = static_cast<int64_t>(rows);
        scores.score[type] = rows > 0 ? sum / rows : nan;
      }
      if (corpus.defined() && generated.defined()) {
        const auto sums = corpus.accessor<double, 4>();
        const double rows = sums[1][induction][layer][head];
        scores.corpus_induction = rows > 0 ? sums[0][induction][layer][head] / rows : nan;
      }
      heads.push_back(scores);
    }
  return heads;
}

double HeadTypesResult::sink_rate() const {
  const auto sink = static_cast<int>(HeadType::Sink);
  int64_t scored = 0, sinks = 0;
  for (const auto& head : heads) {
    if (std::isnan(head.score[sink])) continue;
    ++scored;
    if (head.score[sink] > sink_epsilon) ++sinks;
  }
  return scored > 0 ? static_cast<double>(sinks) / scored : std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::vector<double>> HeadTypesResult::values(HeadType type) const {
  std::vector<std::vector<double>> grid;
  for (const auto& head : heads) {
    if (static_cast<int64_t>(grid.size()) < head.layer) grid.resize(head.layer);
    grid[head.layer - 1].push_back(head.score[static_cast<int>(type)]);
  }
  return grid;
}

ResultTable head_types_table(const HeadTypesResult& result) {
  ResultTable table;
  table.meta("model", result.model);
  table.meta("sink_epsilon", result.sink_epsilon);
  table.meta("sink_rate", result.sink_rate());
  table.meta("corpus_sequences", result.corpus_sequences);
  table.meta("generated_sequences", result.generated_sequences);
  table.add_column("layer", ColumnType::Integer).add_column("head", ColumnType::Integer);
  for (const auto* name : head_type_names()) table.add_column(name, ColumnType::Number);
  const bool on_text = result.corpus_sequences > 0;
  if (on_text) table.add_column("induction_text", ColumnType::Number);
  for (const auto* name : head_type_names()) table.add_json_column(std::string(name) + "_rows", ColumnType::Integer);
  for (const auto& head : result.heads) {
    std::vector<Cell> row = {head.layer, head.head};
    for (const double score : head.score) row.emplace_back(score);
    if (on_text) row.emplace_back(head.corpus_induction);
    for (const int64_t rows : head.rows) row.emplace_back(rows);
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
