// analysis/circuits/token_curves.cpp — see token_curves.h.
#include "analysis/circuits/token_curves.h"

#include <torch/torch.h>

#include <algorithm>

namespace aw {
namespace {

// Trapezoids over the share of candidates ranked.
double area(const std::vector<CurvePoint>& curve, int64_t candidates) {
  double total = 0;
  for (size_t i = 1; i < curve.size(); ++i)
    total += 0.5 * (curve[i].probability + curve[i - 1].probability) *
             static_cast<double>(curve[i].removed - curve[i - 1].removed);
  return candidates > 0 ? std::abs(total) / static_cast<double>(candidates) : 0;
}

}  // namespace

std::vector<int64_t> ranked(const torch::Tensor& scores, const std::vector<int64_t>& candidates) {
  const auto values = scores.to(torch::kCPU, torch::kFloat64).contiguous();
  const auto* data = values.data_ptr<double>();
  auto order = candidates;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return data[a] > data[b]; });
  return order;
}

std::vector<int64_t> curve_counts(int64_t m, int64_t steps) {
  std::vector<int64_t> counts;
  if (m <= steps) {
    for (int64_t k = 0; k <= m; ++k) counts.push_back(k);
    return counts;
  }
  for (int64_t s = 0; s <= steps; ++s) counts.push_back((m * s + steps / 2) / steps);
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

RankingCurves ranking_curves(AttentionModel& model, const ModelInput& input, const AttributionOutput& output,
                             const std::vector<std::vector<int64_t>>& orders, const std::vector<int64_t>& counts,
                             const ForwardOptions& options, const std::string& method) {
  const auto n = input.input_ids.size(1);
  const auto rows = static_cast<int64_t>(counts.size());
  const auto base = input.attention_mask.defined() ? input.attention_mask[0].to(torch::kLong) : torch::ones({n}, torch::kLong);
  RankingCurves curves;
  curves.method = method;
  std::vector<double> deletion(counts.size(), 0), insertion(counts.size(), 0);
  for (const auto& order : orders) {
    auto removed = base.unsqueeze(0).repeat({rows, 1});   // deletion: the first k of the order masked
    auto restored = base.unsqueeze(0).repeat({rows, 1});  // insertion: every candidate masked but the first k
    for (const auto position : order) restored.select(1, position).fill_(0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < counts[r]; ++i) {
        removed[r][order[i]] = 0;
        restored[r][order[i]] = base[order[i]];
      }
    const auto falling = masked_probabilities(model, input, output, removed, options);
    const auto rising = masked_probabilities(model, input, output, restored, options);
    for (int64_t r = 0; r < rows; ++r) deletion[r] += falling[r], insertion[r] += rising[r];
  }
  const auto m = orders.empty() ? 0 : static_cast<int64_t>(orders.front().size());
  for (int64_t r = 0; r < rows; ++r) {
    const auto draws = static_cast<double>(orders.size());
    curves.deletion.push_back({counts[r], deletion[r] / draws});
    curves.insertion.push_back({m - counts[r], insertion[r] / draws});
  }
  curves.deletion_area = area(curves.deletion, m);
  // Insertion's points run from every candidate removed to none: the area over the share restored.
  std::vector<CurvePoint> by_restored;
  for (const auto& point : curves.insertion) by_restored.push_back({m - point.removed, point.probability});
  curves.insertion_area = area(by_restored, m);
  return curves;
}

}  // namespace aw
