// widgets/colour_scale.cpp — see colour_scale.h.
#include "widgets/colour_scale.h"

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

constexpr float kLogFloor = 1e-6f;  // the log scale's lowest weight: exact zeros (masked keys) sit there
constexpr double kAutoPercentile = 0.99;

// The nearest-rank percentile of the positive weights (the ⌈p·k⌉-th smallest of k); 0 when none.
float positive_percentile(const std::vector<float>& weights, double p) {
  std::vector<float> positive;
  positive.reserve(weights.size());
  for (const float weight : weights)
    if (weight > 0) positive.push_back(weight);
  if (positive.empty()) return 0.0f;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(positive.size())));
  const auto nth = positive.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(rank, 1) - 1);
  std::nth_element(positive.begin(), nth, positive.end());
  return *nth;
}
const char* const kScaleNames[] = {"fixed 0–1", "auto", "log", "per row"};

}  // namespace

QString colour_scale_name(ColourScale scale) { return QString::fromUtf8(kScaleNames[static_cast<int>(scale)]); }

ColourScale colour_scale_from_name(const QString& name) {
  for (int i = 0; i < 4; ++i)
    if (name == QString::fromUtf8(kScaleNames[i])) return static_cast<ColourScale>(i);
  return ColourScale::Fixed;
}

ScaledWeights scale_weights(const AttentionMatrix& matrix, ColourScale scale) {
  ScaledWeights scaled;
  scaled.values = matrix.weights;
  float largest = 0.0f, smallest_positive = 1.0f;
  for (const float weight : matrix.weights) {
    largest = std::max(largest, weight);
    if (weight > 0) smallest_positive = std::min(smallest_positive, weight);
  }
  scaled.value_label = "attention weight";
  switch (scale) {
    case ColourScale::Fixed:
      scaled.high = matrix.colourCeiling();
      scaled.caption = scaled.high < 1.0 ? QString("scale 0–%1").arg(scaled.high, 0, 'g', 3) : QString("scale 0–1");
      break;
    case ColourScale::Auto: {
      const float top = positive_percentile(matrix.weights, kAutoPercentile);
      scaled.high = top > 0 ? top : 1.0;
      scaled.caption = QString("scale 0–%1 (99th percentile of the map)").arg(scaled.high, 0, 'g', 3);
      break;
    }
    case ColourScale::Log:
      for (auto& value : scaled.values) value = std::max(value, kLogFloor);
      // At least a decade, widened downwards: widened upwards, a map of weights within a decade of each
      // other drew a probability scale running past 1.
      scaled.high = largest > 0 ? largest : 1.0;
      scaled.low = std::max<double>(kLogFloor, std::min<double>(smallest_positive, scaled.high / 10));
      scaled.logarithmic = true;
      scaled.value_label = "attention weight (log)";
      scaled.caption = "log scale";
      break;
    case ColourScale::RowNormalised:
      for (int row = 0; row < matrix.rows; ++row) {
        float* begin = scaled.values.data() + static_cast<size_t>(row) * matrix.cols;
        const float row_max = matrix.cols > 0 ? *std::max_element(begin, begin + matrix.cols) : 0.0f;
        for (int col = 0; col < matrix.cols; ++col) begin[col] = row_max > 0 ? begin[col] / row_max : 0.0f;
      }
      scaled.value_label = "weight ÷ its row's maximum";
      scaled.caption = "each row ÷ its maximum";
      break;
  }
  return scaled;
}

}  // namespace aw
