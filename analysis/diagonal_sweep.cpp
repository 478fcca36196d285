// analysis/diagonal_sweep.cpp — see diagonal_sweep.h.
#include "analysis/diagonal_sweep.h"

#include "models/errors.h"

#include <cmath>
#include <cstdlib>
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
                                   const ProgressCallback& progress) {
  DiagonalSweepResult result;
  result.model = model_name;
  const auto total = batches_per_point * static_cast<int64_t>(points.size());
  for (size_t index = 0; index < points.size(); ++index) {
    auto options = base;
    options.diagonal = points[index].intervention;
    const auto done_before = batches_per_point * static_cast<int64_t>(index);
    const auto evaluation = evaluate(options, [&](int64_t done, int64_t) {
      return report_progress(progress, done_before + done, total);
    });
    if (evaluation.cancelled) {
      result.cancelled = true;
      break;
    }
    points[index].metric = evaluation.metric;
    points[index].loss = evaluation.loss;
    result.metric_name = evaluation.metric_name;
    result.points.push_back(points[index]);
  }
  return result;
}

std::string diagonal_sweep_csv(const DiagonalSweepResult& result) {
  std::ostringstream csv;
  csv.precision(6);
  csv << "# model=" << result.model << ", metric=" << result.metric_name << "\n";
  csv << "factor,metric\n";
  for (const auto& point : result.points) csv << point.label << "," << point.metric << "\n";
  return csv.str();
}

nlohmann::json diagonal_sweep_json(const DiagonalSweepResult& result) {
  auto points = nlohmann::json::array();
  for (const auto& point : result.points)
    points.push_back({{"factor", point.label}, {"metric", point.metric}, {"loss", point.loss}});
  return {{"model", result.model}, {"metric", result.metric_name}, {"points", points}, {"cancelled", result.cancelled}};
}

}  // namespace aw
