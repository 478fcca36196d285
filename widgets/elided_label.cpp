// widgets/elided_label.cpp — see elided_label.h.
#include "widgets/elided_label.h"

#include <QPainter>

namespace aw {

namespace {
constexpr int kMargin = 4;  // each side, as QLabel's text sits in a status bar
}

ElidedLabel::ElidedLabel(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidedLabel::setText(const QString& text) {
  text_ = text;
  updateToolTip();
  updateGeometry();
  update();
}

void ElidedLabel::setDetail(const QString& detail) {
  detail_ = detail;
  updateToolTip();
}

QString ElidedLabel::shownText() const {
  return fontMetrics().elidedText(text_, Qt::ElideRight, std::max(0, width() - 2 * kMargin));
}

QSize ElidedLabel::sizeHint() const {
  return {fontMetrics().horizontalAdvance(text_) + 2 * kMargin, fontMetrics().height()};
}

QSize ElidedLabel::minimumSizeHint() const {
  // A few letters and the ellipsis: enough to see that there is more in the tooltip.
  return {std::min(sizeHint().width(), fontMetrics().horizontalAdvance("Mmmmmmmm…") + 2 * kMargin),
          fontMetrics().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setPen(palette().color(QPalette::WindowText));
  painter.drawText(rect().adjusted(kMargin, 0, -kMargin, 0), Qt::AlignVCenter | Qt::AlignLeft, shownText());
}

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateToolTip();
}

void ElidedLabel::updateToolTip() {
  const bool cut = shownText() != text_;
  QStringList parts;
  if (cut) parts << text_;
  if (!detail_.isEmpty()) parts << detail_;
  setToolTip(parts.join("\n\n"));
}

}  // namespace aw
