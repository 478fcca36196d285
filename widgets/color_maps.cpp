// widgets/color_maps.cpp — see color_maps.h.
#include "widgets/color_maps.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace aw {

namespace {

// A gradient through `stops` ({position in [0, 1], colour}), with QCustomPlot's default stops cleared.
QCPColorGradient gradient_of(std::initializer_list<std::pair<double, QColor>> stops) {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  for (const auto& [position, colour] : stops) gradient.setColorStopAt(position, colour);
  return gradient;
}

}  // namespace

QCPColorGradient viridis_gradient() {
  auto gradient = gradient_of({{0.000, QColor(0x44, 0x01, 0x54)}, {0.125, QColor(0x47, 0x2d, 0x7b)},
                               {0.250, QColor(0x3b, 0x52, 0x8b)}, {0.375, QColor(0x2c, 0x72, 0x8e)},
                               {0.500, QColor(0x21, 0x91, 0x8c)}, {0.625, QColor(0x28, 0xae, 0x80)},
                               {0.750, QColor(0x5e, 0xc9, 0x62)}, {0.875, QColor(0xad, 0xdc, 0x30)},
                               {1.000, QColor(0xfd, 0xe7, 0x25)}});
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(256);
  return gradient;
}

QCPColorGradient diverging_gradient() {
  return gradient_of({{0.0, QColor(0x21, 0x66, 0xac)}, {0.5, QColor(0xf7, 0xf7, 0xf7)}, {1.0, QColor(0xb2, 0x18, 0x2b)}});
}

QCPRange cell_centre_range(int count, double first) {
  return count == 1 ? QCPRange(first - 0.5, first + 0.5) : QCPRange(first, first + std::max(0, count - 1));
}

}  // namespace aw
