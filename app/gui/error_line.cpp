// app/gui/error_line.cpp — see error_line.h.
#include "app/gui/error_line.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

#include <algorithm>

namespace aw {

ErrorLine::ErrorLine(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 0, 4, 0);
  layout->setSpacing(2);
  label_ = new QLabel;
  label_->setStyleSheet("color: #b00020; font-weight: bold;");
  label_->setCursor(Qt::PointingHandCursor);
  label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // elided to the space left
  label_->installEventFilter(this);
  dismiss_ = new QToolButton;
  dismiss_->setText("×");
  dismiss_->setAutoRaise(true);
  dismiss_->setToolTip("Dismiss this message");
  layout->addWidget(label_, 1);
  layout->addWidget(dismiss_);
  connect(dismiss_, &QToolButton::clicked, this, &ErrorLine::clear);
  setMaximumWidth(kCornerWidth);
  hide();
}

void ErrorLine::showError(const QString& message) {
  message_ = message;
  label_->setToolTip(message + "\n(click to read or copy it whole)");
  show();
  updateGeometry();  // the tab widget lays its corner out again at the new width
  elide();
}

void ErrorLine::clear() {
  message_.clear();
  hide();
}

QString ErrorLine::shownText() const { return label_->text(); }

QSize ErrorLine::sizeHint() const {
  const int text = label_->fontMetrics().horizontalAdvance(QString(message_).replace('\n', ' '));
  int width = std::min(text + dismiss_->sizeHint().width() + 16, maximumWidth());
  // In a tab widget's corner: the room its tabs leave, so that they never need scroll arrows.
  if (const auto* tabs = qobject_cast<const QTabWidget*>(parentWidget()))
    width = std::min(width, std::max(120, tabs->width() - tabs->tabBar()->sizeHint().width() - 12));
  return {width, std::max(label_->sizeHint().height(), dismiss_->sizeHint().height())};
}

void ErrorLine::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  elide();
}

void ErrorLine::elide() {
  const int room = std::max(40, width() - dismiss_->sizeHint().width() - 14);
  label_->setText(label_->fontMetrics().elidedText(QString(message_).replace('\n', ' '), Qt::ElideRight, room));
}

bool ErrorLine::eventFilter(QObject* watched, QEvent* event) {
  if (watched == label_ && event->type() == QEvent::MouseButtonRelease && !message_.isEmpty()) {
    QMessageBox box(QMessageBox::Warning, "Attention Workbench", message_, QMessageBox::Close, window());
    box.setTextInteractionFlags(Qt::TextSelectableByMouse);
    box.exec();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace aw
