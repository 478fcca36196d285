// analysis/attention_stats/attention_stats.h — Bird-Eye Table 1: how much attention stays on the diagonal.
//   CA     = mean of the diagonal entries A[i, i]
//   HA(μ)  = mean of the strictly lower-triangular entries A[i, j], j < i
//   HA(σ)  = their population standard deviation
//   Ratio  = CA / HA(μ)
// Per layer over every head, row and window of the corpus, and per head. Padded positions never
// count; whether row 0 (always 1.0 in a causal model) counts towards CA is a setting. The corpus is
// streamed: only running sums per (layer, head) are kept, on the model's device.
// A translation model's encoder self-attention has no causal mask: there HA is taken over every
// off-diagonal entry A[i, j], j ≠ i (before and after i), a reference for the decoder's rows.
#pragma once

#include "analysis/core/attention_blocks.h"
#include "analysis/statistics/delta_significance.h"
#include "models/nn/model.h"
#include "models/progress.h"

#include <torch/types.h>

#include "table/result_table.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace aw {

struct AttentionStatsSettings {
  bool include_first_row = true;  // as in the paper
  ForwardOptions forward;         // gates and diagonal intervention to run with (capture is set here)
  // The attention blocks measured (empty = all). A translation model's are self-attention blocks:
  // the decoder's (rows: the target tokens, decoder_attention_mask) or the encoder's (rows: the
  // source tokens, attention_mask); cross-attention has no diagonal.
  std::vector<int64_t> blocks;
  // Intervals over independent units (stats_intervals.h): resamples, seed and which windows form one
  // unit (`blocks`: windows cut from one paragraph); none when !significance.enabled().
  SignificanceOptions significance;
};

// A 95 % bootstrap interval; NaN where none was computed.
struct StatsInterval {
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};

struct DiagonalStats {
  int64_t layer = 0;   // 1-based attention block (the layer, for one-kind models)
  int64_t head = 0;    // 1-based; 0 = every head of the layer
  double ca = 0.0, ha_mean = 0.0, ha_std = 0.0, ratio = 0.0;
  int64_t diagonal_entries = 0, lower_entries = 0;  // lower: the off-diagonal entries of a non-causal block
  // The null baseline: the same statistics of uniform attention (each row spread evenly over the
  // keys it may see) over the same rows — what a Ratio means depends on the row lengths, so the
  // observed Ratio is read against this one. NaN where attention_stats did not compute it.
  double uniform_ca = kNoValue, uniform_ha_mean = kNoValue, uniform_ha_std = kNoValue, uniform_ratio = kNoValue;
  // The row-length-normalised variant: every weight multiplied by the number of keys its row may see
  // (i + 1 in a causal window), so uniform attention is 1 everywhere whatever the row's length, and a
  // standard deviation pooled over rows of different lengths measures spread, not length.
  double scaled_ca = kNoValue, scaled_ha_mean = kNoValue, scaled_ha_std = kNoValue;
  // Percentile intervals of CA, HA(μ), Ratio and Ratio over the uniform Ratio under resampling the
  // corpus's independent units (each interval holds its estimate).
  StatsInterval ca_interval, ha_mean_interval, ratio_interval, over_uniform_interval;

  static constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
};

struct AttentionStatsResult {
  std::string model;
  bool include_first_row = true;
  std::vector<DiagonalStats> layers;  // one per layer
  std::vector<DiagonalStats> heads;   // one per (layer, head), layer-major
  BlockNames names;                   // how rows name their block (kind column for translation models)
  int64_t windows = 0;
  SignificanceOptions significance;  // the settings' (the rows' intervals are set when it is enabled)
  bool cancelled = false;
};

// The running sums behind attention_stats, fed one layer's probabilities at a time — separate from
// the forward so hand-built matrices can be checked against worked answers.
class DiagonalStatsAccumulator {
 public:
  // heads_per_block: each layer's head count; sums live on `device` in float64.
  DiagonalStatsAccumulator(std::vector<int64_t> heads_per_block, bool include_first_row, const torch::Device& device);
  // probabilities [B, H, rows, n] of `layer` (0-based): query rows first_row … first_row + rows − 1,
  // a tile of the layer (models/nn/attention.h) or all of it; valid [B, n] bool (true = token, false =
  // padding). `causal` false: HA counts every off-diagonal entry, not only j < i. A key a valid row
  // may not see (after it when causal, padding) must hold 0, as a softmax leaves it; padded rows are
  // skipped whatever they hold.
  void add(int64_t layer, const torch::Tensor& probabilities, const torch::Tensor& valid, bool causal = true,
           int64_t first_row = 0);
  // Per-layer and per-head statistics of everything added so far (one transfer to the host).
  void finish(AttentionStatsResult& result) const;
  // Also keep each batch row's own sums, for intervals over units (take_example_sums).
  void keep_examples(bool keep) { keep_examples_ = keep; }
  // Each batch row's sums since the last take ([B, 8, L, H_max] on `device`), and a fresh start;
  // undefined when nothing was added or keep_examples is off.
  torch::Tensor take_example_sums();
  // The sums so far ([8, L, H_max]), and a fresh start: attention_stats keeps each batch's part
  // apart (models/distribution.h) and hands back their total before finish().
  torch::Tensor take_sums();
  void set_sums(const torch::Tensor& sums) { sums_ = sums; }

 private:
  std::vector<int64_t> heads_per_layer_;
  bool include_first_row_;
  // [8, L, H_max]: diagonal sum, diagonal count, lower sum, lower square sum, lower count, and the
  // diagonal, lower and lower square sums of the weights scaled by their row's key count
  torch::Tensor sums_;
  bool keep_examples_ = false;
  torch::Tensor example_sums_;  // [B, 8, L, H_max], made by the first add after a take
};

// Runs every batch through `model` (in inference mode) and accumulates the statistics.
// `progress` is called after each batch with (batches done, batches).
AttentionStatsResult attention_stats(AttentionModel& model, const std::string& model_name,
                                     const std::vector<ModelInput>& batches, const AttentionStatsSettings& settings,
                                     const ProgressCallback& progress = {});

// Bird-Eye Table 1: metadata include_first_row, then `model,layer,CA,HA_mean,HA_std,Ratio` (or with
// `head` after `layer` when per_head) followed by the uniform baseline's `uniform_CA,uniform_HA_mean,
// uniform_HA_std,uniform_Ratio`, `Ratio_over_uniform` and the row-length-normalised
// `CA_x_keys,HA_x_keys_mean,HA_x_keys_std`, then, when intervals were computed, `CA_low,CA_high,
// HA_mean_low,HA_mean_high,Ratio_low,Ratio_high,Ratio_over_uniform_low,Ratio_over_uniform_high` with
// the bootstrap's settings and unit in the metadata (or why there are none); one block of rows per
// result; `model,kind,layer,…` when a translation model is among them (a language model's rows are
// then of kind dec). The entry counts go to JSON only.
ResultTable attention_stats_table(const std::vector<AttentionStatsResult>& results, bool per_head);

}  // namespace aw
