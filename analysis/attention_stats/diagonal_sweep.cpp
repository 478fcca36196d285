// analysis/attention_stats/diagonal_sweep.cpp — see diagonal_sweep.h.
#include "analysis/attention_stats/diagonal_sweep.h"

#include "models/errors.h"

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace aw {

std::vector<DiagonalSweepPoint> parse_diagonal_factors(const std::string& list) {
  std::vector<DiagonalSweepPoint> points;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    DiagonalSweepPoint point;
    point.label = item;
    if (item == "mask") {
      point.intervention = DiagonalIntervention::mask();
    } else {
      char* end = nullptr;
      const double factor = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || !std::isfinite(factor) || factor < 0)
        throw Error("--factors: '" + item + "' is neither a number ≥ 0 nor 'mask'");
      point.intervention = DiagonalIntervention::scale(factor);
    }
    points.push_back(point);
  }
  if (points.empty()) throw Error("--factors: empty list");
  return points;
}

std::string default_diagonal_factors() { return "0,0.2,0.4,0.6,0.8,1,1.2,1.4,1.6,1.8,2"; }

DiagonalSweepResult diagonal_sweep(const std::string& model_name, std::vector<DiagonalSweepPoint> points,
                                   const Evaluator& evaluate, int64_t batches_per_point, const ForwardOptions& base,
                                   const ProgressCallback& progress, const SignificanceOptions& significance) {
  DiagonalSweepResult result;
  result.model = model_name;
  result.significance = significance;
  const auto total = batches_per_point * static_cast<int64_t>(points.size() + 1);
  std::vector<torch::Tensor> example_columns;  // per evaluation, baseline first
  torch::Tensor example_counts;
  // Evaluation 0 is the baseline (no intervention), 1.. the points.
  for (size_t index = 0; index <= points.size(); ++index) {
    auto options = base;
    if (index > 0) options.diagonal = points[index - 1].intervention;
    const auto done_before = batches_per_point * static_cast<int64_t>(index);
    const auto evaluation = evaluate(options, [&](int64_t done, int64_t) {
      return report_progress(progress, done_before + done, total);
    });
    if (evaluation.cancelled) {
      result.cancelled = true;
      return result;
    }
    result.metric_name = evaluation.metric_name;
    if (significance.enabled()) {
      TORCH_CHECK(evaluation.example_sums.defined(), "diagonal_sweep: the evaluator kept no examples");
      example_columns.push_back(evaluation.example_sums);
      example_counts = evaluation.example_counts;
    }
    if (index == 0) {
      result.baseline = evaluation.metric;
      continue;
    }
    auto& point = points[index - 1];
    point.metric = evaluation.metric;
    point.loss = evaluation.loss;
    point.delta = evaluation.metric - result.baseline;
    result.points.push_back(point);
  }
  if (significance.enabled() && !result.points.empty()) {
    const ExampleScores scores{result.metric_name, torch::stack(example_columns, 1), example_counts};
    std::vector<int64_t> compared(result.points.size());
    std::iota(compared.begin(), compared.end(), 1);
    const auto tested = delta_significance(scores, 0, compared, significance);
    for (size_t p = 0; p < result.points.size(); ++p) result.points[p].significance = tested[p];
  }
  return result;
}

std::string diagonal_sweep_csv(const DiagonalSweepResult& result) {
  std::ostringstream csv;
  csv.precision(6);
  csv << "# model=" << result.model << ", metric=" << result.metric_name << ", baseline=" << result.baseline;
  const bool tested = result.significance.enabled();
  if (tested) csv << ", " << significance_description(result.significance);
  csv << "\n";
  csv << "factor,metric,delta" << (tested ? "," + significance_header() : "") << "\n";
  for (const auto& point : result.points) {
    csv << point.label << "," << point.metric << "," << point.delta;
    if (tested) csv << "," << significance_columns(point.significance);
    csv << "\n";
  }
  return csv.str();
}

nlohmann::json diagonal_sweep_json(const DiagonalSweepResult& result) {
  auto points = nlohmann::json::array();
  for (const auto& point : result.points) {
    nlohmann::json entry{{"factor", point.label}, {"metric", point.metric}, {"loss", point.loss}, {"delta", point.delta}};
    if (result.significance.enabled()) entry.update(significance_json(point.significance));
    points.push_back(entry);
  }
  return {{"model", result.model},       {"metric", result.metric_name},
          {"baseline", result.baseline}, {"points", points},
          {"cancelled", result.cancelled}, {"bootstrap", significance_settings_json(result.significance)}};
}

}  // namespace aw
