// analysis/attention_stats/stats_intervals.h — Bird-Eye Table 1 with intervals: the bootstrap over the
// corpus's independent units (paragraphs of a text, sentence pairs) of CA, HA(μ), Ratio and Ratio over
// the uniform Ratio. CA and HA are ratios of sums, so each resample adds up its units' running sums
// (DiagonalStatsAccumulator's) and divides, as the whole corpus does.
#pragma once

#include "analysis/attention_stats/attention_stats.h"

#include <torch/types.h>

#include <vector>

namespace aw {

// Sets the intervals of every row of result.layers and result.heads (rows of every block, before any
// are left out). window_sums [N, 8, L, H]: each window's sums in DiagonalStatsAccumulator's layout;
// window_uniform [N, 8, 2, 1]: its uniform baseline's (causal rows, then encoder rows); encoder_block[l]:
// whether block l's rows are an encoder's. options.blocks names each window's unit (empty: every window
// is one); requires options.enabled().
void add_stats_intervals(AttentionStatsResult& result, const torch::Tensor& window_sums,
                         const torch::Tensor& window_uniform, const std::vector<bool>& encoder_block,
                         const SignificanceOptions& options);

}  // namespace aw
