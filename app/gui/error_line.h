// app/gui/error_line.h — the window's one red error line, in the tab bar's free corner (or, where the
// tabs leave it too little room, at the status bar's left): it never pushes the tabs down (a line above
// them moved the whole window's content by ~28 pixels). Long messages are
// elided to the corner, whole in the tooltip and in a dialog on click; × dismisses the line.
#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace aw {

class ErrorLine : public QWidget {
  Q_OBJECT

 public:
  explicit ErrorLine(QWidget* parent = nullptr);

  void showError(const QString& message);
  void clear();
  QString text() const { return message_; }  // the whole message; "" when none is shown
  QString shownText() const;                 // as drawn in the corner (elided)
  QToolButton* dismissButton() const { return dismiss_; }
  // The whole message's width, up to the corner's maximum: the tab widget sizes its corner by it.
  QSize sizeHint() const override;
  // Pixels the line needs to be read in a tab bar's corner (the window puts it elsewhere otherwise).
  static constexpr int kLeastRoom = 260;
  static constexpr int kCornerWidth = 420;  // the most it takes of a corner

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void elide();

  QLabel* label_;
  QToolButton* dismiss_;
  QString message_;
};

}  // namespace aw
