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
    for (size_t p = 0; p < result.points.size(); ++p) result.points[p].significance = tested[p].holding(result.points[p].delta);
  }
  return result;
}

ResultTable diagonal_sweep_table(const DiagonalSweepResult& result) {
  ResultTable table;
  table.meta("model", result.model).meta("metric", result.metric_name).meta("baseline", result.baseline);
  const bool tested = result.significance.enabled();
  add_significance_meta(table, result.significance);
  table.add_column("factor", ColumnType::Text).add_column("metric", ColumnType::Number).add_column("delta", ColumnType::Number);
  if (tested) add_significance_columns(table);
  table.add_json_column("loss", ColumnType::Number);
  for (const auto& point : result.points) {
    std::vector<Cell> row{point.label, point.metric, point.delta};
    if (tested) append_cells(row, significance_cells(point.significance));
    append_cells(row, {point.loss});
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
