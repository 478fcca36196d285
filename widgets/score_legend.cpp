// widgets/score_legend.cpp — see score_legend.h.
#include "widgets/score_legend.h"

#include "widgets/color_maps.h"

#include <QPainter>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

constexpr int kBarHeight = 10;

QString score_text(double value) { return QString::number(value, 'g', 3); }

}  // namespace

QPair<double, double> score_range(const std::vector<std::vector<double>>& scores) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& layer : scores)
    for (double score : layer)
      if (std::isfinite(score)) low = std::min(low, score), high = std::max(high, score);
  if (!std::isfinite(low)) low = 0;
  if (!(high > low)) high = low + 1;
  return {low, high};
}

QColor score_colour(double score, const QPair<double, double>& range) {
  if (!std::isfinite(score)) return Qt::transparent;
  static auto gradient = viridis_gradient();  // color() is not const: it fills a lookup table once
  return QColor::fromRgb(gradient.color(score, QCPRange(range.first, range.second)));
}

ScoreLegend::ScoreLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ScoreLegend::setScale(const QString& label, double low, double high) {
  label_ = label;
  low_ = low;
  high_ = high;
  setToolTip(QString("Cell colour: %1 from %2 (dark blue) to %3 (yellow)").arg(label, score_text(low), score_text(high)));
  updateGeometry();
  update();
}

QSize ScoreLegend::sizeHint() const {
  const auto metrics = fontMetrics();
  return {metrics.horizontalAdvance(label_) + 120, metrics.height() * 2 + kBarHeight};
}

void ScoreLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const auto metrics = fontMetrics();
  const int line = metrics.height();
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(QRect(0, 0, width(), line), Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(label_, Qt::ElideRight, width()));
  // The bar, in the gradient the cells are painted with, between the two end values.
  const auto low = score_text(low_), high = score_text(high_);
  const int left = metrics.horizontalAdvance(low) + 4, right = width() - metrics.horizontalAdvance(high) - 4;
  const QRect bar(left, line + 2, std::max(10, right - left), kBarHeight);
  auto gradient = viridis_gradient();
  for (int x = 0; x < bar.width(); ++x) {
    const double value = low_ + (high_ - low_) * x / std::max(1, bar.width() - 1);
    painter.setPen(gradient.color(value, QCPRange(low_, high_ > low_ ? high_ : low_ + 1)));
    painter.drawLine(bar.left() + x, bar.top(), bar.left() + x, bar.bottom());
  }
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(QRect(0, bar.top() - 3, left - 2, kBarHeight + 6), Qt::AlignRight | Qt::AlignVCenter, low);
  painter.drawText(QRect(bar.right() + 3, bar.top() - 3, width(), kBarHeight + 6), Qt::AlignLeft | Qt::AlignVCenter, high);
}

}  // namespace aw
