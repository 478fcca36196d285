// analysis/head_types/head_types.cpp — see head_types.h.
#include "analysis/head_types/head_types.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace aw {
namespace {

// Weights reduced at once: the float32 entropy pass's temporary stays at 4 MB (in the cache), far
// below the tile the model made, whatever the memory budget.
constexpr int64_t kReducedWeights = int64_t{1} << 20;
// Entry lists kept across the layers of one batch, at most (beyond it they are rebuilt per layer).
constexpr int64_t kCachedEntryBytes = int64_t{256} << 20;

const int kEntropy = static_cast<int>(HeadType::Entropy);

}  // namespace

// Every score but entropy is a sum of single weights A[b, h, i, j]: which (b, i, j) each score adds
// (a row's previous key, first key, own key; its earlier copies; the keys after them) depends on
// the tokens only, so it is worked out once per batch and row range and read by every layer as one
// gather — where a product of each tile with n-wide masks cost as much as the forward's softmax.
struct HeadTypeAccumulator::TileEntries {
  torch::Tensor sequence, row, key;  // [E] int64: the weight's sequence, row within the rows, key
  torch::Tensor type;                // [E] int64: the score it adds to
  torch::Tensor counted;             // [kHeadTypes] float64: the rows behind each score
  torch::Tensor valid_rows;          // [B, 1, rows] float64: 1 = a real row (entropy's weights)
  int64_t bytes = 0;
};

HeadTypeAccumulator::TileEntries HeadTypeAccumulator::entries(const torch::Tensor& ids, const torch::Tensor& valid,
                                                              int64_t first_row, int64_t rows) const {
  const int64_t count = ids.size(0), length = ids.size(1);
  const auto long_options = torch::dtype(torch::kLong).device(ids.device());
  const auto query = torch::arange(first_row, first_row + rows, long_options);  // (rows)
  const auto key = torch::arange(length, long_options);                          // (n)
  const auto valid_rows = valid.narrow(1, first_row, rows);                      // (B, rows)
  const auto previous_valid = valid.index_select(1, (query - 1).clamp_min(0)) & query.ge(1).unsqueeze(0);
  // Earlier occurrences of the row's token (j < i), and the keys just after them (1 ≤ j ≤ i with
  // t[j − 1] = t[i]), on real rows and keys: [B, rows, n].
  const auto row_ids = ids.narrow(1, first_row, rows).unsqueeze(2);  // (B, rows, 1)
  const auto real = valid_rows.unsqueeze(2) & valid.unsqueeze(1);
  const auto duplicate = key.unsqueeze(0).lt(query.unsqueeze(1)).unsqueeze(0) & real & row_ids.eq(ids.unsqueeze(1));
  const auto shifted_ids = torch::cat({torch::full({count, 1}, -1, long_options),
                                       ids.narrow(1, 0, length - 1).masked_fill(valid.narrow(1, 0, length - 1).logical_not(), -1)},
                                      1);  // t[j − 1], −1 at j = 0 and after padding
  const auto induction = key.unsqueeze(0).le(query.unsqueeze(1)).unsqueeze(0) & real & row_ids.eq(shifted_ids.unsqueeze(1));
  const auto has_earlier = duplicate.any(2);

  std::vector<torch::Tensor> sequences, row_list, keys, types;
  auto add_rows = [&](int type, const torch::Tensor& rows_mask, const torch::Tensor& key_of) {  // one key per row
    const auto at = rows_mask.nonzero();                                                       // (E, 2): b, r
    const auto b = at.select(1, 0), r = at.select(1, 1);
    sequences.push_back(b), row_list.push_back(r), keys.push_back(key_of.index({b, r}));
    types.push_back(torch::full({at.size(0)}, type, long_options));
  };
  auto add_keys = [&](int type, const torch::Tensor& mask) {  // every key the mask holds
    const auto at = mask.nonzero();                           // (E, 3): b, r, j
    sequences.push_back(at.select(1, 0)), row_list.push_back(at.select(1, 1)), keys.push_back(at.select(1, 2));
    types.push_back(torch::full({at.size(0)}, type, long_options));
  };
  const auto row_keys = query.unsqueeze(0).expand({count, rows});
  const auto first_key = valid.to(torch::kLong).argmax(1, true).expand({count, rows});
  add_rows(static_cast<int>(HeadType::PreviousToken), valid_rows & previous_valid, row_keys - 1);
  add_keys(static_cast<int>(HeadType::DuplicateToken), duplicate);
  add_keys(static_cast<int>(HeadType::Induction), induction);
  add_rows(static_cast<int>(HeadType::Sink), valid_rows, first_key);
  add_rows(static_cast<int>(HeadType::Self), valid_rows, row_keys);

  TileEntries made;
  made.sequence = torch::cat(sequences), made.row = torch::cat(row_list), made.key = torch::cat(keys);
  made.type = torch::cat(types);
  const auto real_rows = valid_rows.sum(), copied_rows = has_earlier.sum();
  made.counted = torch::stack({(valid_rows & previous_valid).sum(), copied_rows, copied_rows, real_rows, real_rows,
                               real_rows, learned_sinks_ ? real_rows : torch::zeros_like(real_rows)})
                     .to(torch::kFloat64);
  made.valid_rows = valid_rows.to(torch::kFloat64).unsqueeze(1);
  made.bytes = 4 * made.type.numel() * static_cast<int64_t>(sizeof(int64_t));
  return made;
}


namespace {
// Each score beside its name; head_type_names() indexes by the score, so the order is checked.
constexpr std::array<std::pair<HeadType, const char*>, kHeadTypes> kHeadTypeNames = {{
    {HeadType::PreviousToken, "previous_token"},
    {HeadType::DuplicateToken, "duplicate_token"},
    {HeadType::Induction, "induction"},
    {HeadType::Sink, "sink"},
    {HeadType::Entropy, "entropy"},
    {HeadType::Self, "self"},
    {HeadType::LearnedSink, "learned_sink"},
}};
constexpr bool names_in_score_order() {
  for (int type = 0; type < kHeadTypes; ++type)
    if (static_cast<int>(kHeadTypeNames[type].first) != type) return false;
  return true;
}
static_assert(names_in_score_order());
}  // namespace

const std::array<const char*, kHeadTypes>& head_type_names() {
  static const auto names = [] {
    std::array<const char*, kHeadTypes> made{};
    for (int type = 0; type < kHeadTypes; ++type) made[type] = kHeadTypeNames[type].second;
    return made;
  }();
  return names;
}

int head_type_index(const std::string& name) {
  const auto& names = head_type_names();
  for (int type = 0; type < kHeadTypes; ++type)
    if (name == names[type]) return type;
  return -1;
}

HeadTypeAccumulator::HeadTypeAccumulator(std::vector<int64_t> heads_per_layer, const torch::Device& device, bool causal,
                                         bool learned_sinks)
    : heads_per_layer_(std::move(heads_per_layer)), causal_(causal), learned_sinks_(learned_sinks) {
  const auto widest = heads_per_layer_.empty() ? 0 : *std::max_element(heads_per_layer_.begin(), heads_per_layer_.end());
  sums_ = torch::zeros({2, kHeadTypes, static_cast<int64_t>(heads_per_layer_.size()), widest},
                       torch::dtype(torch::kFloat64).device(device));
}

HeadTypeAccumulator::~HeadTypeAccumulator() = default;

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
  // The entries of this batch's rows, from the cache while the same batch is in flight.
  if (!cached_ids_.is_same(ids) || !cached_valid_.is_same(valid)) {
    cache_.clear(), cached_bytes_ = 0;
    cached_ids_ = ids, cached_valid_ = valid;
  }
  const auto found = cache_.find({first_row, rows});
  std::unique_ptr<TileEntries> uncached;
  const TileEntries* tile = nullptr;
  if (found != cache_.end()) {
    tile = found->second.get();
  } else {
    auto made = std::make_unique<TileEntries>(entries(ids, valid, first_row, rows));
    if (cached_bytes_ + made->bytes <= kCachedEntryBytes) {
      cached_bytes_ += made->bytes;
      tile = cache_.emplace(std::make_pair(first_row, rows), std::move(made)).first->second.get();
    } else {
      uncached = std::move(made), tile = uncached.get();
    }
  }
  const auto options = torch::dtype(torch::kFloat64).device(probabilities.device());
  const auto picked = probabilities.index({tile->sequence, torch::indexing::Slice(), tile->row, tile->key});  // (E, H)
  auto head_sums = torch::zeros({kHeadTypes, heads}, options).index_add_(0, tile->type, picked.to(torch::kFloat64));
  // Entropy −Σ p ln p per row, p = 0 read as a tiny p (0 · ln 1e-30 = 0), in place on one copy: on
  // this CPU 1.6× faster than entr (whose logf is not vectorised) and 1.2× than the same in fresh
  // tensors. A causal model's row i holds 0 beyond key i: the keys past the last row are left out
  // (about half of every layer's weights).
  const int64_t keys = causal_ ? std::min(probabilities.size(3), first_row + rows) : probabilities.size(3);
  const auto weights = probabilities.narrow(3, 0, keys);
  const auto entropy = weights.clamp_min(1e-30).log_().mul_(weights).sum(3).to(torch::kFloat64);  // (B, H, rows), −H
  head_sums[kEntropy] = -(entropy * tile->valid_rows).sum(std::vector<int64_t>{0, 2});
  if (learned_sinks_) {  // the share the row's sink took: what its weights over the tokens leave of 1
    const auto share = 1 - probabilities.sum(3).to(torch::kFloat64);  // (B, H, rows)
    head_sums[static_cast<int>(HeadType::LearnedSink)] = (share * tile->valid_rows).sum(std::vector<int64_t>{0, 2});
  }
  sums_[0].select(1, layer).narrow(1, 0, heads) += head_sums;
  sums_[1].select(1, layer).narrow(1, 0, heads) += tile->counted.unsqueeze(1);
}

torch::Tensor head_type_sums(AttentionModel& model, const std::vector<ModelInput>& batches,
                             const ForwardOptions& forward, const ProgressCallback& progress) {
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const auto device = model.module().parameters().front().device();
  HeadTypeAccumulator sums(config.heads_per_block, device, config.causal, config.decoder.attention_sinks);
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
    const double learned = head.score[static_cast<int>(HeadType::LearnedSink)];
    if (head.score[sink] > sink_epsilon || (learned_sinks && learned > sink_epsilon)) ++sinks;
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
  // learned_sink only where the model has learned sinks: every other model's table is as it was.
  const int types = result.learned_sinks ? kHeadTypes : static_cast<int>(HeadType::LearnedSink);
  for (int type = 0; type < types; ++type) table.add_column(head_type_names()[type], ColumnType::Number);
  const bool on_text = result.corpus_sequences > 0;
  if (on_text) table.add_column("induction_text", ColumnType::Number);
  for (int type = 0; type < types; ++type)
    table.add_json_column(std::string(head_type_names()[type]) + "_rows", ColumnType::Integer);
  for (const auto& head : result.heads) {
    std::vector<Cell> row = {head.layer, head.head};
    for (int type = 0; type < types; ++type) row.emplace_back(head.score[type]);
    if (on_text) row.emplace_back(head.corpus_induction);
    for (int type = 0; type < types; ++type) row.emplace_back(head.rows[type]);
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
