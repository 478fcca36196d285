// widgets/elided_label.h — a one-line label that gives way: it asks for its whole text's width but can
// be squeezed to a few letters, then draws its text elided ("…") with the whole text in its tooltip.
// The status bar's model list uses it so that an error line beside it always keeps its room.
#pragma once

#include <QWidget>

namespace aw {

class ElidedLabel : public QWidget {
  Q_OBJECT

 public:
  explicit ElidedLabel(QWidget* parent = nullptr);

  void setText(const QString& text);
  QString text() const { return text_; }
  QString shownText() const;  // as drawn at the present width
  // Where the whole text does not fit, the tooltip holds it (before the detail set here).
  void setDetail(const QString& detail);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateToolTip();

  QString text_, detail_;
};

}  // namespace aw
