// widgets/color_maps.cpp — see color_maps.h.
#include "widgets/color_maps.h"

#include <algorithm>

namespace aw {

QCPColorGradient viridis_gradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  gradient.setColorStopAt(0.000, QColor(0x44, 0x01, 0x54));
  gradient.setColorStopAt(0.125, QColor(0x47, 0x2d, 0x7b));
  gradient.setColorStopAt(0.250, QColor(0x3b, 0x52, 0x8b));
  gradient.setColorStopAt(0.375, QColor(0x2c, 0x72, 0x8e));
  gradient.setColorStopAt(0.500, QColor(0x21, 0x91, 0x8c));
  gradient.setColorStopAt(0.625, QColor(0x28, 0xae, 0x80));
  gradient.setColorStopAt(0.750, QColor(0x5e, 0xc9, 0x62));
  gradient.setColorStopAt(0.875, QColor(0xad, 0xdc, 0x30));
  gradient.setColorStopAt(1.000, QColor(0xfd, 0xe7, 0x25));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(256);
  return gradient;
}

QCPColorGradient diverging_gradient() {
  QCPColorGradient gradient;
  gradient.clearColorStops();
  gradient.setColorStopAt(0.0, QColor(0x21, 0x66, 0xac));
  gradient.setColorStopAt(0.5, QColor(0xf7, 0xf7, 0xf7));
  gradient.setColorStopAt(1.0, QColor(0xb2, 0x18, 0x2b));
  return gradient;
}

QCPRange cell_centre_range(int count, double first) {
  return count == 1 ? QCPRange(first - 0.5, first + 0.5) : QCPRange(first, first + std::max(0, count - 1));
}

}  // namespace aw
