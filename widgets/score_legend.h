// widgets/score_legend.h — the key to a colouring by scores: "importance", then the lowest score, a
// colour bar and the highest, so that a coloured heads panel says what its colours mean. Scores of
// both signs (ablation damage, patching effects) take the plots' blue–white–red map, symmetric around
// 0; scores of one sign viridis over their range.
#pragma once

#include <QColor>
#include <QPair>
#include <QWidget>

#include <vector>

namespace aw {

// The range a colouring by scores spans, and its map.
struct ScoreScale {
  double low = 0, high = 1;  // high > low always
  bool diverging = false;    // scores of both signs: low = −high, 0 white (the plots' map)
};
// The scale of `scores` ([layer][head]): their finite lowest and highest ([0, 1] when there is none),
// or ±the largest magnitude when some are below 0 and some above.
ScoreScale score_range(const std::vector<std::vector<double>>& scores);
// A score's colour on that scale (transparent for NaN).
QColor score_colour(double score, const ScoreScale& scale);
// "from 0.1 (dark blue) to 0.9 (yellow)", or "from −2 (blue) through 0 (white) to 2 (red)".
QString score_scale_phrase(const ScoreScale& scale);

class ScoreLegend : public QWidget {
  Q_OBJECT

 public:
  explicit ScoreLegend(QWidget* parent = nullptr);

  // The scores' name and the scale their colours span.
  void setScale(const QString& label, const ScoreScale& scale);
  QString label() const { return label_; }
  double low() const { return scale_.low; }
  double high() const { return scale_.high; }
  bool diverging() const { return scale_.diverging; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString label_;
  ScoreScale scale_;
};

}  // namespace aw
