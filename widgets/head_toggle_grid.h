// widgets/head_toggle_grid.h — the heads panel: a layers × heads grid of toggle cells (click to
// switch a head off or on), the buttons All on / Invert / Keep only / Reset, a "7 of 24 heads off"
// summary, and optional colouring of the cells by a score (importance, ablation Δ) with its legend.
#pragma once

#include "widgets/cell_wrap.h"
#include "widgets/head_gates.h"
#include "widgets/layer_labels.h"
#include "widgets/query_groups.h"
#include "widgets/score_legend.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QScrollArea;

namespace aw {

// The grid itself: paints the cells and turns clicks into toggles.
class HeadCellGrid : public QWidget {
  Q_OBJECT

 public:
  explicit HeadCellGrid(QWidget* parent = nullptr);

  void setGates(const HeadGates& gates);
  const HeadGates& gates() const { return gates_; }
  // The rows' names (empty: "L1", "L2", …).
  void setLayerNames(const QStringList& names);
  // Per layer, the query heads of each key/value head (grouped-query attention): the cells of one
  // group sit together, a wider gap between groups. Empty: no groups.
  void setQueryGroups(const std::vector<std::vector<int>>& groups);
  // The key/value head that query head `head` of `layer` reads (−1 without groups).
  int groupOf(int layer, int head) const;
  // Scores per [layer][head] shown as cell colour (score_legend.h: viridis over their range, or
  // blue–white–red around 0 for scores of both signs); empty = no colouring.
  void setScores(const std::vector<std::vector<double>>& scores, const QString& label);
  ScoreScale scoreRange() const;  // the scale the colours span
  void setSelected(int layer, int head);
  int selectedLayer() const { return selected_layer_; }
  int selectedHead() const { return selected_head_; }

  // The cell's rectangle in widget coordinates (for tests and hit-testing).
  QRect cellRect(int layer, int head) const;
  int cellSide() const;  // 12–34 pixels: as much as the widget's size gives
  // How a layer's heads wrap at a width: every head in view, none behind a sideways scrollbar.
  CellWrap wrapAt(int width) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  int heightForWidth(int width) const override;

 Q_SIGNALS:
  void cellClicked(int layer, int head);
  void keepOnlyRequested(int layer, int head);
  void heightNeeded(int height);  // the rows at the current width (the panel fits its scroll area to it)

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  int maxHeads() const;
  QPair<int, int> cellAt(const QPoint& position) const;
  int labelWidth() const;
  int rowsDown() const;  // rows of cells: layers × bands
  int layerGap() const;
  void fitHeight();  // the least height: the wrapped rows' at the current width
  QString layerPhrase(int layer) const;  // "layer 3", or the block's name ("Cross 2")

  HeadGates gates_;
  QueryGroups groups_;
  LayerLabels labels_;
  std::vector<std::vector<double>> scores_;
  QString score_label_;
  int selected_layer_ = -1, selected_head_ = -1;
};

class HeadToggleGrid : public QWidget {
  Q_OBJECT

 public:
  explicit HeadToggleGrid(QWidget* parent = nullptr);

  // Shows `gates` (e.g. another model's) without emitting gatesChanged.
  void setGates(const HeadGates& gates);
  const HeadGates& gates() const { return grid_->gates(); }
  // Colours the cells and shows the legend under them (hidden without scores).
  void setScores(const std::vector<std::vector<double>>& scores, const QString& label);
  ScoreLegend* legend() const { return legend_; }

  // Each of these changes the gates and emits gatesChanged once (if anything changed).
  void toggle(int layer, int head);
  void keepOnly(int layer, int head);  // the head on, every other head of its layer off
  void allOn();
  void invert();
  void reset();  // all on, and the score colouring and selection cleared

  HeadCellGrid* grid() const { return grid_; }
  QString summaryText() const;
  // One width for every model and colouring: the panel does not move the tabs beside it.
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 Q_SIGNALS:
  void gatesChanged(const aw::HeadGates& gates);

 private:
  void apply(const HeadGates& gates);
  void updateSummary();

  HeadCellGrid* grid_;
  QScrollArea* scroll_;  // around the grid: many layers scroll down (a layer's heads wrap)
  QLabel* summary_;
  ScoreLegend* legend_;
  QPushButton* keep_only_button_;
};

}  // namespace aw
