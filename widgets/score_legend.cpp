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

ScoreScale score_range(const std::vector<std::vector<double>>& scores) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& layer : scores)
    for (double score : layer)
      if (std::isfinite(score)) low = std::min(low, score), high = std::max(high, score);
  if (!std::isfinite(low)) return {};
  if (low < 0 && high > 0) {
    const double bound = std::max(-low, high);
    return {-bound, bound, true};
  }
  return {low, high > low ? high : low + 1, false};
}

QColor score_colour(double score, const ScoreScale& scale) {
  if (!std::isfinite(score)) return Qt::transparent;
  // color() is not const: it fills a lookup table once
  static auto viridis = viridis_gradient();
  static auto diverging = diverging_gradient();
  return QColor::fromRgb((scale.diverging ? diverging : viridis).color(score, QCPRange(scale.low, scale.high)));
}

QString score_scale_phrase(const ScoreScale& scale) {
  if (scale.diverging)
    return QString("from %1 (blue) through 0 (white) to %2 (red)").arg(score_text(scale.low), score_text(scale.high));
  return QString("from %1 (dark blue) to %2 (yellow)").arg(score_text(scale.low), score_text(scale.high));
}

ScoreLegend::ScoreLegend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ScoreLegend::setScale(const QString& label, const ScoreScale& scale) {
  label_ = label;
  scale_ = scale;
  setToolTip(QString("Cell colour: %1 %2").arg(label, score_scale_phrase(scale)));
  updateGeometry();
  update();
}

QSize ScoreLegend::sizeHint() const {
  // Not the label's width: a longer label is elided rather than widen the heads panel (it moved every
  // tab sideways between colourings).
  return {150, fontMetrics().height() * 2 + kBarHeight};
}

void ScoreLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const auto metrics = fontMetrics();
  const int line = metrics.height();
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(QRect(0, 0, width(), line), Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(label_, Qt::ElideRight, width()));
  // The bar, in the gradient the cells are painted with, between the two end values.
  const auto low = score_text(scale_.low), high = score_text(scale_.high);
  const int left = metrics.horizontalAdvance(low) + 4, right = width() - metrics.horizontalAdvance(high) - 4;
  const QRect bar(left, line + 2, std::max(10, right - left), kBarHeight);
  for (int x = 0; x < bar.width(); ++x) {
    const double value = scale_.low + (scale_.high - scale_.low) * x / std::max(1, bar.width() - 1);
    painter.setPen(score_colour(value, scale_));
    painter.drawLine(bar.left() + x, bar.top(), bar.left() + x, bar.bottom());
  }
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(QRect(0, bar.top() - 3, left - 2, kBarHeight + 6), Qt::AlignRight | Qt::AlignVCenter, low);
  painter.drawText(QRect(bar.right() + 3, bar.top() - 3, width(), kBarHeight + 6), Qt::AlignLeft | Qt::AlignVCenter, high);
}

}  // namespace aw
