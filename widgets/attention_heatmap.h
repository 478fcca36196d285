// widgets/attention_heatmap.h — one attention matrix as a heatmap: QCPColorMap without
// interpolation, viridis on a colour scale of the user's choice (fixed [0, 1] by default, so heads
// stay comparable; the map's own maximum; logarithmic; or each row divided by its maximum, for long
// sequences whose weights are all near 1/n), the scale named in the title (and so in an exported
// image), query 0 on top, token labels on both axes (rotated, thinned by the pixels available), and a
// hover readout "query → key: weight" with enough digits for small weights.
#pragma once

#include "widgets/attention_matrix.h"
#include "widgets/colour_scale.h"

#include <QWidget>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;
class QLabel;

namespace aw {

class AttentionHeatmap : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionHeatmap(QWidget* parent = nullptr);

  void setMatrix(const AttentionMatrix& matrix);
  const AttentionMatrix& matrix() const { return matrix_; }
  void setColourScale(ColourScale scale);
  ColourScale colourScale() const { return scale_; }
  QString titleText() const { return full_title_; }  // the matrix's title and the scale in use (not elided)
  // Lines the title takes at the current width (a long one wraps), and a floor the title is padded
  // to, so maps side by side keep their top edges level when only one title wraps.
  int titleLines() const { return title_lines_; }
  void setMinimumTitleLines(int lines);
  // While a new run for this map is under way: the old map greyed and `note` ("running bet_sf…")
  // over it; empty `note` = current again.
  void setStale(const QString& note);
  bool isStale() const;

  // "query → key: 0.123" (small weights in scientific notation, 4 significant digits) for a cell, or
  // an empty string outside the matrix.
  QString cellText(int row, int col) const;
  // The cell under a widget-local position, or (-1, -1).
  QPoint cellAt(const QPoint& position) const;

  QCustomPlot* plot() const { return plot_; }
  QCPColorMap* colorMap() const { return color_map_; }

 Q_SIGNALS:
  void titleLinesChanged(int lines);
  void cellHovered(int row, int col, float weight);
  void cellClicked(int row, int col);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateTicks();
  void paintCells();  // the matrix's cells and the colour range under the current scale
  void elideTitle();  // each title line wrapped, then cut with "…", to the plot's width, so it never overflows

  AttentionMatrix matrix_;
  ColourScale scale_ = ColourScale::Fixed;
  QCustomPlot* plot_;
  QCPColorMap* color_map_;
  QCPColorScale* color_scale_;
  QCPTextElement* title_;
  QLabel* stale_note_;
  QString full_title_;
  int title_lines_ = 0;
  int minimum_title_lines_ = 0;
};

}  // namespace aw
