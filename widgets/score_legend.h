// widgets/score_legend.h — the key to a colouring by scores: "importance", then the lowest score, a
// viridis bar and the highest, so that a coloured heads panel says what its colours mean.
#pragma once

#include <QColor>
#include <QPair>
#include <QWidget>

#include <vector>

namespace aw {

// The range a colouring by `scores` ([layer][head]) spans: their finite lowest and highest ([0, 1]
// when there is none; high > low always).
QPair<double, double> score_range(const std::vector<std::vector<double>>& scores);
// A score's viridis colour over that range (transparent for NaN).
QColor score_colour(double score, const QPair<double, double>& range);

class ScoreLegend : public QWidget {
  Q_OBJECT

 public:
  explicit ScoreLegend(QWidget* parent = nullptr);

  // The scores' name and the range the colours span (low → dark blue, high → yellow).
  void setScale(const QString& label, double low, double high);
  QString label() const { return label_; }
  double low() const { return low_; }
  double high() const { return high_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString label_;
  double low_ = 0, high_ = 1;
};

}  // namespace aw
