// analysis/attention_stats/attention_stats.cpp — see attention_stats.h.
#include "analysis/attention_stats/attention_stats.h"

#include "analysis/attention_stats/stats_intervals.h"
#include "models/distribution.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

namespace aw {
namespace {

// sums: diagonal sum, diagonal count, lower sum, lower square sum, lower count, then the first, third
// and fourth again with every weight scaled by its row's key count.
DiagonalStats finish_stats(int64_t layer, int64_t head, const std::array<double, 8>& sums) {
  const auto [diagonal_sum, diagonal_count, lower_sum, lower_square_sum, lower_count, scaled_diagonal_sum,
              scaled_lower_sum, scaled_lower_square_sum] = sums;
  DiagonalStats stats;
  stats.layer = layer;
  stats.head = head;
  stats.diagonal_entries = static_cast<int64_t>(diagonal_count);
  stats.lower_entries = static_cast<int64_t>(lower_count);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  stats.ca = diagonal_count > 0 ? diagonal_sum / diagonal_count : nan;
  stats.ha_mean = lower_count > 0 ? lower_sum / lower_count : nan;
  const double variance = lower_count > 0 ? lower_square_sum / lower_count - stats.ha_mean * stats.ha_mean : nan;
  stats.ha_std = std::sqrt(std::max(0.0, variance));
  stats.ratio = stats.ca / stats.ha_mean;
  stats.scaled_ca = diagonal_count > 0 ? scaled_diagonal_sum / diagonal_count : nan;
  stats.scaled_ha_mean = lower_count > 0 ? scaled_lower_sum / lower_count : nan;
  const double scaled_variance =
      lower_count > 0 ? scaled_lower_square_sum / lower_count - stats.scaled_ha_mean * stats.scaled_ha_mean : nan;
  stats.scaled_ha_std = std::sqrt(std::max(0.0, scaled_variance));
  return stats;
}


// Rows of a tile the accumulator reduces at once: its float64 working copies of at most 4M weights
// (32 MB each) stay below the tile the model made, whatever the budget.
constexpr int64_t kReducedWeights = int64_t{1} << 22;

int64_t rows_per_chunk(int64_t weights_per_row) { return std::max<int64_t>(1, kReducedWeights / std::max<int64_t>(weights_per_row, 1)); }

// Uniform attention over rows [first_row, first_row + rows) of `valid` [B, n]: each valid row spread
// evenly over the valid keys it may see (j ≤ i when causal); [B, 1, rows, n].
torch::Tensor uniform_attention(const torch::Tensor& valid, bool causal, int64_t first_row, int64_t rows) {
  const int64_t length = valid.size(1);
  auto allowed = valid.narrow(1, first_row, rows).unsqueeze(2) & valid.unsqueeze(1);  // (B, rows, n)
  if (causal) {
    const auto long_options = torch::dtype(torch::kLong).device(valid.device());
    allowed = allowed & torch::arange(length, long_options).unsqueeze(0).le(
                            torch::arange(first_row, first_row + rows, long_options).unsqueeze(1));
  }
  const auto weights = allowed.to(torch::kFloat64);
  return (weights / weights.sum(2, true).clamp_min(1)).unsqueeze(1);
}

// The uniform baseline of `valid`'s rows added to `sums` as layer `layer`, a few rows at a time.
void add_uniform(DiagonalStatsAccumulator& sums, int64_t layer, const torch::Tensor& valid, bool causal) {
  const int64_t length = valid.size(1), chunk = rows_per_chunk(valid.size(0) * length);
  for (int64_t first = 0; first < length; first += chunk) {
    const int64_t rows = std::min(chunk, length - first);
    sums.add(layer, uniform_attention(valid, causal, first, rows), valid, causal, first);
  }
}

}  // namespace

DiagonalStatsAccumulator::DiagonalStatsAccumulator(std::vector<int64_t> heads_per_block, bool include_first_row,
                                                   const torch::Device& device)
    : heads_per_layer_(std::move(heads_per_block)), include_first_row_(include_first_row) {
  const auto widest = heads_per_layer_.empty() ? 0 : *std::max_element(heads_per_layer_.begin(), heads_per_layer_.end());
  sums_ = torch::zeros({8, static_cast<int64_t>(heads_per_layer_.size()), widest},
                       torch::dtype(torch::kFloat64).device(device));
}

void DiagonalStatsAccumulator::add(int64_t layer, const torch::Tensor& probabilities, const torch::Tensor& valid,
                                   bool causal, int64_t first_row) {
  const int64_t heads = probabilities.size(1), rows = probabilities.size(2), keys = probabilities.size(3);
  const int64_t chunk = rows_per_chunk(probabilities.size(0) * heads * keys);
  if (rows > chunk) {  // a large tile: reduced a few rows at a time (the sums do not care)
    for (int64_t first = 0; first < rows; first += chunk)
      add(layer, probabilities.narrow(2, first, std::min(chunk, rows - first)), valid, causal, first_row + first);
    return;
  }
  const auto device = probabilities.device();
  const auto valid_keys = valid.to(device, torch::kFloat64);                                  // (B, n)
  const auto valid_rows = valid_keys.narrow(1, first_row, rows).unsqueeze(1);                 // (B, 1, rows)
  // Each row reduced in the tile's own float type (float32 from a model, float64 for the uniform
  // baseline), only the per-row results in float64: a float64 copy of every tile was most of what
  // stats spent beyond a plain forward (Llama-1B layout at 8k tokens: 1.36x it, now 1.06x;
  // docs/long-context.md).
  const bool own_type = probabilities.scalar_type() == torch::kFloat32 || probabilities.scalar_type() == torch::kFloat64;
  const auto values = own_type ? probabilities : probabilities.to(torch::kFloat32);           // (B, H, rows, n)
  // A key a row may not see (causal, padding, a window, a masked diagonal) holds exactly 0 after the
  // softmax, so a row's off-diagonal sum is its total less its diagonal, and the same for the squares:
  // no rows × n masks, one pass over the tile.
  const auto diagonal = values.diagonal(first_row, 2, 3).to(torch::kFloat64);                // (B, H, rows): A[i, i]
  auto diagonal_kept = valid_rows.clone();
  if (!include_first_row_ && first_row == 0) diagonal_kept.select(2, 0).zero_();
  const auto diagonal_rows = diagonal * diagonal_kept;
  const auto lower_rows = (values.sum(-1).to(torch::kFloat64) - diagonal) * valid_rows;
  // The squares summed, not a norm squared: the norm's rounded square root cost 2e-8 of HA(σ).
  const auto squares = values.square().sum(-1).to(torch::kFloat64);                          // (B, H, rows)
  const auto lower_square_rows = (squares - diagonal * diagonal) * valid_rows;
  // Keys each valid row may see, itself included (j ≤ i when causal): the row-length scale of the
  // normalised variant; all but itself are its off-diagonal entries.
  const auto keys_seen = (causal ? valid_keys.cumsum(1).narrow(1, first_row, rows).unsqueeze(1)
                                 : valid_keys.sum(1, true).unsqueeze(1)) * valid_rows;         // (B, 1, rows)
  const auto lower_entries = (keys_seen - 1).clamp_min(0) * valid_rows;
  // Each batch row's sums (8, B, H): added up for the totals, kept as they are for intervals over units.
  const int64_t batch = probabilities.size(0);
  const auto per_example = torch::stack({diagonal_rows.sum(2), diagonal_kept.sum(2).expand({batch, heads}),
                                         lower_rows.sum(2), lower_square_rows.sum(2),
                                         lower_entries.sum(2).expand({batch, heads}),
                                         (diagonal_rows * keys_seen).sum(2), (lower_rows * keys_seen).sum(2),
                                         (lower_square_rows * keys_seen * keys_seen).sum(2)});
  sums_.select(1, layer).narrow(1, 0, heads).add_(per_example.sum(1));
  if (!keep_examples_) return;
  if (!example_sums_.defined()) {
    auto shape = sums_.sizes().vec();
    shape.insert(shape.begin(), batch);
    example_sums_ = torch::zeros(shape, sums_.options());
  }
  example_sums_.select(2, layer).narrow(2, 0, heads).add_(per_example.transpose(0, 1));
}

torch::Tensor DiagonalStatsAccumulator::take_example_sums() {
  auto taken = example_sums_;
  example_sums_ = torch::Tensor();
  return taken;
}

torch::Tensor DiagonalStatsAccumulator::take_sums() {
  auto taken = sums_;
  sums_ = torch::zeros_like(taken);
  return taken;
}

void DiagonalStatsAccumulator::finish(AttentionStatsResult& result) const {
  const auto host = sums_.cpu();                                                               // (8, L, H)
  const auto per_layer = host.sum(2);                                                          // (8, L)
  const auto cells = host.accessor<double, 3>();
  const auto layers = per_layer.accessor<double, 2>();
  result.layers.clear();
  result.heads.clear();
  for (int64_t layer = 0; layer < static_cast<int64_t>(heads_per_layer_.size()); ++layer) {
    std::array<double, 8> sums{};
    for (size_t k = 0; k < sums.size(); ++k) sums[k] = layers[static_cast<int64_t>(k)][layer];
    result.layers.push_back(finish_stats(layer + 1, 0, sums));
    for (int64_t head = 0; head < heads_per_layer_[layer]; ++head) {
      for (size_t k = 0; k < sums.size(); ++k) sums[k] = cells[static_cast<int64_t>(k)][layer][head];
      result.heads.push_back(finish_stats(layer + 1, head + 1, sums));
    }
  }
}

AttentionStatsResult attention_stats(AttentionModel& model, const std::string& model_name,
                                     const std::vector<ModelInput>& batches, const AttentionStatsSettings& settings,
                                     const ProgressCallback& progress) {
  require_token_attention(model.config(), model_name, "stats");
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const auto device = model.module().parameters().front().device();
  DiagonalStatsAccumulator sums(config.heads_per_block, settings.include_first_row, device);
  // The null baseline over the same rows: "layer" 0 the causal rows, 1 the encoder's.
  DiagonalStatsAccumulator uniform({1, 1}, settings.include_first_row, device);

  AttentionStatsResult result;
  result.model = model_name;
  result.include_first_row = settings.include_first_row;
  result.names = block_names(config);
  auto blocks = settings.blocks;
  if (blocks.empty())
    for (int64_t block = 0; block < config.n_blocks; ++block) blocks.push_back(block);
  std::vector<bool> measured(config.n_blocks, false);
  std::vector<bool> encoder_block(config.n_blocks, false);
  for (const auto block : blocks) {
    const auto kind = config.attention_block(block).kind;
    TORCH_CHECK(kind != AttentionKind::Cross, "stats measure self-attention blocks, not cross-attention");
    measured.at(block) = true;
    encoder_block.at(block) = kind == AttentionKind::Encoder;
  }
  // Which kinds of rows the uniform baseline needs: causal (decoder, language model) and encoder rows.
  const bool any_causal = std::any_of(blocks.begin(), blocks.end(), [&](int64_t b) { return !encoder_block[b]; });
  const bool any_encoder = std::any_of(blocks.begin(), blocks.end(), [&](int64_t b) { return encoder_block[b]; });
  // [B, rows] of the batch in flight, read by the observer: the target's tokens (decoder or a
  // language model) and the source's (a translation model's encoder).
  torch::Tensor valid, source_valid;
  ForwardOptions options = settings.forward;
  options.capture = CaptureMode::Stats;
  options.capture_layers = measured;  // the blocks not measured mix without probabilities
  // Tile by tile: nothing holds a layer's [B, H, n, n] (models/nn/attention.h).
  options.tile_observer = [&](int64_t layer, int64_t first_row, const torch::Tensor& tile) {
    if (!measured[layer]) return;
    if (encoder_block[layer]) sums.add(layer, tile, source_valid, /*causal=*/false, first_row);
    else sums.add(layer, tile, valid, /*causal=*/true, first_row);
  };

  const auto total = static_cast<int64_t>(batches.size());
  // Each batch's sums apart, added in batch order at the end, whichever process computed them.
  const auto& distribution = current_distribution();
  const auto sums_shape = sums.take_sums().sizes().vec(), uniform_shape = uniform.take_sums().sizes().vec();
  BatchSums batch_sums(total, sums_shape, torch::dtype(torch::kFloat64).device(device));
  BatchSums batch_uniform(total, uniform_shape, torch::dtype(torch::kFloat64).device(device));
  // With intervals: every window's own sums, on the host, for the bootstrap over units.
  const bool intervals = settings.significance.enabled();
  sums.keep_examples(intervals);
  uniform.keep_examples(intervals);
  result.significance = settings.significance;
  std::vector<torch::Tensor> window_sums(total), window_uniform(total);
  std::vector<int64_t> rows_per_batch;
  for (const auto& batch : batches) rows_per_batch.push_back(batch.predicted_ids().size(0));
  for (int64_t index = 0; index < total; ++index) {
    if (!distribution.owns(index)) {
      if (!report_progress(progress, index + 1, total)) return result.cancelled = true, result;
      continue;
    }
    const auto& batch = batches[index];
    const auto& rows = batch.predicted_ids();  // the decoder's tokens for a translation model
    const int64_t count = rows.size(0), length = rows.size(1);
    valid = batch.predicted_mask().defined() ? batch.predicted_mask().ne(0)
                                             : torch::ones({count, length}, torch::kBool);
    source_valid = batch.attention_mask.defined() ? batch.attention_mask.ne(0)
                                                  : torch::ones(batch.input_ids.sizes(), torch::kBool);
    // The layers alone: the statistics need no logits, which for a 128k-word vocabulary are the
    // largest tensor of the forward (1 GB for 4 × 512 tokens in float32).
    model.run_layers(model.embed(batch), batch, 0, model.config().n_blocks, options);
    if (any_causal) add_uniform(uniform, 0, valid.to(device), /*causal=*/true);
    if (any_encoder) add_uniform(uniform, 1, source_valid.to(device), /*causal=*/false);
    batch_sums.row(index).copy_(sums.take_sums());
    batch_uniform.row(index).copy_(uniform.take_sums());
    if (intervals) {
      window_sums[index] = sums.take_example_sums().cpu();
      window_uniform[index] = uniform.take_example_sums().cpu();
    }
    result.windows += count;
    if (!report_progress(progress, index + 1, total)) {
      result.cancelled = true;
      break;
    }
  }
  if (result.cancelled && distribution.shared()) return result;  // the others would wait for this share
  sums.set_sums(batch_sums.total(distribution));
  uniform.set_sums(batch_uniform.total(distribution));
  if (distribution.shared()) {
    auto windows = torch::tensor({result.windows}, torch::kLong);
    distribution.sum_over_processes(windows);
    result.windows = windows[0].item<int64_t>();
  }
  sums.finish(result);
  AttentionStatsResult baseline;
  uniform.finish(baseline);
  for (auto* rows : {&result.layers, &result.heads})
    for (auto& row : *rows) {
      const auto& null = baseline.layers.at(encoder_block[row.layer - 1] ? 1 : 0);
      row.uniform_ca = null.ca;
      row.uniform_ha_mean = null.ha_mean;
      row.uniform_ha_std = null.ha_std;
      row.uniform_ratio = null.ratio;
    }
  if (intervals && !result.cancelled) {
    const auto host = torch::dtype(torch::kFloat64);
    const auto every_window_sums = collect_batch_rows(window_sums, rows_per_batch, host, distribution, sums_shape);
    const auto every_window_uniform =
        collect_batch_rows(window_uniform, rows_per_batch, host, distribution, uniform_shape);
    add_stats_intervals(result, every_window_sums, every_window_uniform, encoder_block, settings.significance);
  }
  // Only the measured blocks' rows (the others were never fed).
  auto keep = [&](std::vector<DiagonalStats>& rows) {
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const DiagonalStats& row) { return !measured[row.layer - 1]; }),
               rows.end());
  };
  keep(result.layers);
  keep(result.heads);
  return result;
}

ResultTable attention_stats_table(const std::vector<AttentionStatsResult>& results, bool per_head) {
  ResultTable table;
  table.meta("include_first_row", results.empty() || results.front().include_first_row);
  const bool with_kind = std::any_of(results.begin(), results.end(), [](const auto& r) { return r.names.with_kind; });
  table.add_column("model", ColumnType::Text);
  if (with_kind) table.add_column("kind", ColumnType::Text);
  table.add_column("layer", ColumnType::Integer);
  if (per_head) table.add_column("head", ColumnType::Integer);
  for (const char* name : {"CA", "HA_mean", "HA_std", "Ratio", "uniform_CA", "uniform_HA_mean", "uniform_HA_std",
                           "uniform_Ratio", "Ratio_over_uniform", "CA_x_keys", "HA_x_keys_mean", "HA_x_keys_std"})
    table.add_column(name, ColumnType::Number);
  // Intervals: their columns when any result has them, and the bootstrap's settings (or why it was
  // refused) from the first result that asked for one.
  const auto asked = std::find_if(results.begin(), results.end(), [](const auto& r) {
    return r.significance.enabled() || !r.significance.refused.empty();
  });
  const bool intervals =
      std::any_of(results.begin(), results.end(), [](const auto& r) { return r.significance.enabled(); });
  if (asked != results.end()) add_significance_meta(table, asked->significance);
  if (intervals)
    for (const char* name : {"CA_low", "CA_high", "HA_mean_low", "HA_mean_high", "Ratio_low", "Ratio_high",
                             "Ratio_over_uniform_low", "Ratio_over_uniform_high"})
      table.add_column(name, ColumnType::Number);
  table.add_json_column("diagonal_entries", ColumnType::Integer).add_json_column("lower_entries", ColumnType::Integer);
  for (const auto& result : results) {
    for (const auto& stats : per_head ? result.heads : result.layers) {
      // The block's columns (kind and layer within it, or the layer), then the head's where there is one.
      auto row = with_kind ? std::vector<Cell>{result.model, result.names.kind.at(stats.layer - 1),
                                               result.names.layer.at(stats.layer - 1)}
                           : std::vector<Cell>{result.model, stats.layer};
      if (per_head) append_cells(row, {stats.head});
      append_cells(row, {stats.ca, stats.ha_mean, stats.ha_std, stats.ratio, stats.uniform_ca, stats.uniform_ha_mean,
                         stats.uniform_ha_std, stats.uniform_ratio, stats.ratio / stats.uniform_ratio, stats.scaled_ca,
                         stats.scaled_ha_mean, stats.scaled_ha_std});
      if (intervals)
        for (const auto* interval : {&stats.ca_interval, &stats.ha_mean_interval, &stats.ratio_interval,
                                     &stats.over_uniform_interval})
          append_cells(row, {interval->low, interval->high});
      append_cells(row, {stats.diagonal_entries, stats.lower_entries});
      table.add_row(std::move(row));
    }
  }
  return table;
}

}  // namespace aw
