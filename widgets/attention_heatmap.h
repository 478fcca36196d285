// widgets/attention_heatmap.h — one attention matrix as a heatmap: QCPColorMap without
// interpolation, viridis on a fixed [0, 1] scale (heads stay comparable), query 0 on top, token
// labels on both axes (rotated, thinned when long), and a hover readout "query → key: weight".
#pragma once

#include "widgets/attention_matrix.h"

#include <QWidget>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;

namespace aw {

class AttentionHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionHeatmap(QWidget* parent = nullptr);

  void setMatrix(const AttentionMatrix& matrix);
  const AttentionMatrix& matrix() const { return matrix_; }

  // "query → key: 0.123" for a cell, or an empty string outside the matrix.
  QString cellText(int row, int col) const;
  // The cell under a widget-local position, or (-1, -1).
  QPoint cellAt(const QPoint& position) const;

  QCustomPlot* plot() const { return plot_; }
  QCPColorMap* colorMap() const { return color_map_; }

 Q_SIGNALS:
  void cellHovered(int row, int col, float weight);
  void cellClicked(int row, int col);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateTicks();

  AttentionMatrix matrix_;
  QCustomPlot* plot_;
  QCPColorMap* color_map_;
  QCPColorScale* color_scale_;
  QCPTextElement* title_;
};

}  // namespace aw
