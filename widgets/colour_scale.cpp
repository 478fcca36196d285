// widgets/colour_scale.cpp — see colour_scale.h.
#include "widgets/colour_scale.h"

#include <algorithm>

namespace aw {
namespace {

constexpr float kLogFloor = 1e-6f;  // the log scale's lowest weight: exact zeros (masked keys) sit there
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
    case ColourScale::Auto:
      scaled.high = largest > 0 ? largest : 1.0;
      scaled.caption = QString("scale 0–%1 (the map's maximum)").arg(largest, 0, 'g', 3);
      break;
    case ColourScale::Log:
      for (auto& value : scaled.values) value = std::max(value, kLogFloor);
      scaled.low = std::max(kLogFloor, std::min(smallest_positive, largest));
      scaled.high = std::max<double>(largest, scaled.low * 10);
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
