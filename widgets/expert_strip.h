// widgets/expert_strip.h — a mixture of experts' routing as the window shows it: the text's tokens in
// a wrapping strip, each on the colour of the expert its router chose first, so runs of tokens sent to
// one expert show at a glance; the tooltip gives every chosen expert and its weight. Plain data, no
// LibTorch.
#pragma once

#include "widgets/expert_tokens.h"

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace aw {

// A distinct colour per expert (twelve hues, then lighter and darker turns of them).
QColor expert_colour(int expert);

class ExpertStrip : public QWidget {
  Q_OBJECT

 public:
  explicit ExpertStrip(QWidget* parent = nullptr);

  // `routing` null: the layer has no router (a dense layer) and `note` says so.
  void setRouting(const QStringList& tokens, const ExpertTokens* routing, int expert_count, const QString& title,
                  const QString& note = {});
  QString titleText() const { return title_; }
  // "the → expert 3 (0.62), expert 1 (0.38)" for token `index`, or "" outside the text.
  QString tokenText(int index) const;
  // The token at a widget-local position, or −1.
  int tokenAt(const QPoint& position) const;
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  // Each token's chip at `width`, and the height they take.
  std::vector<QRect> layout(int width, int* height = nullptr) const;

  QStringList tokens_;
  ExpertTokens routing_;
  bool routed_ = false;
  int expert_count_ = 0;
  QString title_, note_;
};

}  // namespace aw
