// analysis/attention_stats.cpp — see attention_stats.h.
#include "analysis/attention_stats.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace aw {
namespace {

// Running sums for every (layer, head): [L, H_max] float64 on the model's device.
struct RunningSums {
  torch::Tensor diagonal_sum, diagonal_count, lower_sum, lower_square_sum, lower_count;
};

DiagonalStats finish(int64_t layer, int64_t head, double diagonal_sum, double diagonal_count, double lower_sum,
                     double lower_square_sum, double lower_count) {
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
  return stats;
}

std::string number(double value) {
  if (std::isnan(value)) return "nan";
  std::ostringstream text;
  text.precision(6);
  text << value;
  return text.str();
}

}  // namespace

AttentionStatsResult attention_stats(AttentionModel& model, const std::string& model_name,
                                     const std::vector<ModelInput>& batches, const AttentionStatsSettings& settings,
                                     const ProgressCallback& progress) {
  c10::InferenceMode inference;
  model.module().eval();
  const auto& config = model.config();
  const auto device = model.module().parameters().front().device();
  const auto sums_options = torch::dtype(torch::kFloat64).device(device);
  RunningSums sums;
  for (auto* sum : {&sums.diagonal_sum, &sums.diagonal_count, &sums.lower_sum, &sums.lower_square_sum, &sums.lower_count})
    *sum = torch::zeros({config.n_layers, config.max_heads()}, sums_options);

  AttentionStatsResult result;
  result.model = model_name;
  result.include_first_row = settings.include_first_row;

  // Masks of one batch ([B, 1, n, n] bool), set before its forward, read by the observer.
  torch::Tensor diagonal_mask, lower_mask;
  ForwardOptions options = settings.forward;
  options.capture = CaptureMode::Stats;
  options.observer = [&](int64_t layer, const torch::Tensor& probabilities) {
    const int64_t heads = probabilities.size(1);
    const auto values = probabilities.to(torch::kFloat64);                                   // (B, H, n, n)
    auto add = [&](torch::Tensor& sum, const torch::Tensor& per_head) {
      sum[layer].narrow(0, 0, heads).add_(per_head);
    };
    add(sums.diagonal_sum, (values * diagonal_mask).sum({0, 2, 3}));
    add(sums.diagonal_count, diagonal_mask.to(torch::kFloat64).sum({0, 2, 3}).expand({heads}));
    const auto lower = values * lower_mask;
    add(sums.lower_sum, lower.sum({0, 2, 3}));
    add(sums.lower_square_sum, (lower * lower).sum({0, 2, 3}));
    add(sums.lower_count, lower_mask.to(torch::kFloat64).sum({0, 2, 3}).expand({heads}));
  };

  const auto total = static_cast<int64_t>(batches.size());
  for (int64_t index = 0; index < total; ++index) {
    const auto& batch = batches[index];
    const int64_t count = batch.input_ids.size(0), length = batch.input_ids.size(1);
    const auto bool_options = torch::dtype(torch::kBool).device(device);
    auto valid = batch.attention_mask.defined() ? batch.attention_mask.to(device).ne(0)
                                                : torch::ones({count, length}, bool_options);
    const auto valid_pairs = (valid.unsqueeze(2) & valid.unsqueeze(1)).unsqueeze(1);        // (B, 1, n, n)
    auto eye = torch::eye(length, bool_options);
    if (!settings.include_first_row) eye.index_put_({0, 0}, false);
    diagonal_mask = valid_pairs & eye;
    lower_mask = valid_pairs & torch::ones({length, length}, bool_options).tril(-1);
    model.forward(batch, options);
    result.windows += count;
    if (!report_progress(progress, index + 1, total)) {
      result.cancelled = true;
      break;
    }
  }

  // One transfer of the sums to the host at the end.
  const auto host = torch::stack({sums.diagonal_sum, sums.diagonal_count, sums.lower_sum, sums.lower_square_sum,
                                  sums.lower_count})
                        .cpu();                                                               // (5, L, H)
  const auto per_layer = host.sum(2);                                                         // (5, L)
  auto at = [](const torch::Tensor& t, int64_t a, int64_t b) { return t[a][b].item<double>(); };
  for (int64_t layer = 0; layer < config.n_layers; ++layer) {
    result.layers.push_back(finish(layer + 1, 0, at(per_layer, 0, layer), at(per_layer, 1, layer), at(per_layer, 2, layer),
                                   at(per_layer, 3, layer), at(per_layer, 4, layer)));
    for (int64_t head = 0; head < config.heads_per_layer[layer]; ++head) {
      const auto cell = host.select(2, head).select(1, layer);                               // (5)
      result.heads.push_back(finish(layer + 1, head + 1, cell[0].item<double>(), cell[1].item<double>(),
                                    cell[2].item<double>(), cell[3].item<double>(), cell[4].item<double>()));
    }
  }
  return result;
}

std::string attention_stats_csv(const std::vector<AttentionStatsResult>& results, bool per_head) {
  std::ostringstream csv;
  const bool first_row = results.empty() || results.front().include_first_row;
  csv << "# include_first_row=" << (first_row ? "true" : "false") << "\n";
  csv << (per_head ? "model,layer,head,CA,HA_mean,HA_std,Ratio\n" : "model,layer,CA,HA_mean,HA_std,Ratio\n");
  for (const auto& result : results) {
    for (const auto& row : per_head ? result.heads : result.layers) {
      csv << result.model << "," << row.layer;
      if (per_head) csv << "," << row.head;
      csv << "," << number(row.ca) << "," << number(row.ha_mean) << "," << number(row.ha_std) << ","
          << number(row.ratio) << "\n";
    }
  }
  return csv.str();
}

nlohmann::json attention_stats_json(const AttentionStatsResult& result) {
  auto rows = [](const std::vector<DiagonalStats>& stats) {
    auto array = nlohmann::json::array();
    for (const auto& row : stats)
      array.push_back({{"layer", row.layer},       {"head", row.head},
                       {"CA", row.ca},             {"HA_mean", row.ha_mean},
                       {"HA_std", row.ha_std},     {"Ratio", row.ratio},
                       {"diagonal_entries", row.diagonal_entries}, {"lower_entries", row.lower_entries}});
    return array;
  };
  return {{"model", result.model},         {"include_first_row", result.include_first_row},
          {"windows", result.windows},     {"cancelled", result.cancelled},
          {"layers", rows(result.layers)}, {"heads", rows(result.heads)}};
}

}  // namespace aw
