// widgets/result_plot.h — the plot beside an analysis table: grouped bars (Table 1 Ratio per layer),
// curves (pruning, diagonal sweep), a layers × heads matrix (ablation Δ, importance) or a grid of
// small plots of curves (LAMA's word-weight densities, one plot per word), on one QCustomPlot that
// can be saved as PNG or PDF.
#pragma once

#include <QColor>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPAxisRect;
class QCPColorScale;
class QCPLayoutGrid;
class QCPTextElement;

namespace aw {

struct PlotSeries {
  QString name;
  QVector<double> x;
  QVector<double> y;
  QColor colour = {};  // invalid: the next colour of the qualitative palette
  bool dashed = false; // showCurves: a dashed line (e.g. validation next to training in the same colour)
  // Optional, one per point: an interval drawn as a translucent band around the curve (showCurves),
  // named band_name in the legend, or as whiskers on each bar (showBars).
  QVector<double> low;
  QVector<double> high;
  QString band_name = {};
  // showCurves: on the right-hand value axis, for a quantity of another scale (a classifier's loss
  // beside language models' cross-entropy).
  bool right_axis = false;
};

// The qualitative palette's colour `index` (Okabe & Ito, colour-blind safe; repeats after 6): what a
// series without its own colour gets, for plots that colour series by group.
QColor series_colour(int index);

struct SmallPlot {  // one cell of a small-multiples grid
  QString title;
  QVector<PlotSeries> series;
};

struct ReferenceLine {  // a horizontal dashed line, e.g. the unablated baseline or DiagFreeMask
  QString name;
  double y = 0.0;
  int series = -1;  // the series whose colour it takes (a model's uniform baseline); −1: a colour of its own
};

class ResultPlot : public QWidget {
  Q_OBJECT

 public:
  explicit ResultPlot(QWidget* parent = nullptr);

  void clear(const QString& message = {});
  // The plot's title whole, as given (on screen it wraps to its column's width: wrapped_title.h).
  QString title() const { return title_; }
  // One group of bars per category, one bar per series (series[i].y[c] = value for category c), with
  // optional dashed reference lines across all of them (Table 1: the uniform-attention Ratio).
  void showBars(const QString& title, const QStringList& categories, const QVector<PlotSeries>& series,
                const QString& value_label, const QVector<ReferenceLine>& references = {});
  // Curves over x, the legend in rows under the plot (inside it, it hid a curve's end); series marked
  // right_axis go on a right-hand axis labelled `right_label`.
  void showCurves(const QString& title, const QVector<PlotSeries>& series, const QString& x_label,
                  const QString& y_label, const QVector<ReferenceLine>& references = {},
                  const QString& right_label = {});
  // Fixes the value axis of the curves shown to [low, high] (a share in %: 0–100), which showCurves
  // otherwise fits to the data.
  void setValueRange(double low, double high);
  // Points only, no lines (e.g. each head's effect on two data sets, Michel Figure 2).
  void showScatter(const QString& title, const QVector<PlotSeries>& series, const QString& x_label,
                   const QString& y_label);
  // values[row][col] (NaN = no such head); diverging: a blue–white–red map symmetric around 0,
  // else viridis over the values' range.
  // One small plot per entry, `columns` per row, each with its own axes; one legend (every series
  // name that occurs, in first-seen order) in the first plot. Series of the same name should share a colour.
  void showSmallMultiples(const QString& title, const QVector<SmallPlot>& plots, int columns, const QString& x_label,
                          const QString& y_label);
  // Rows are labelled `row_labels` when given (e.g. "cross 2"), else row_prefix + number. Cells where
  // marks[row][col] is true get a "*" (e.g. a significant ablation effect).
  void showMatrix(const QString& title, const QVector<QVector<double>>& values, const QString& row_prefix,
                  const QString& col_prefix, const QString& scale_label, bool diverging,
                  const QStringList& row_labels = {}, const QVector<QVector<bool>>& marks = {});

  // After showMatrix: the columns named `labels` (left to right) instead of col_prefix + number, every
  // one where they fit, else every n-th.
  void setColumnLabels(const QStringList& labels);
  // After showMatrix: texts[row][col] written small on its cell, on a pale box so that it reads on
  // any colour (the logit lens: each layer's top token), elided to the cell's width as the plot is
  // laid out now; none where the cells are narrower than four letters.
  void addCellTexts(const QVector<QStringList>& texts);
  // After showMatrix: tips[row][col] shown while the pointer rests on its cell (the logit lens: the top
  // k), for as long as it rests there; cells without one show none.
  void setCellToolTips(const QVector<QStringList>& tips);
  QString cellToolTip(int row, int column) const;

  bool savePng(const QString& path);
  bool savePdf(const QString& path);
  QCustomPlot* plot() const { return plot_; }
  bool isEmpty() const;

 Q_SIGNALS:
  // A click on a cell of the matrix on view (showMatrix): its 0-based row and column.
  void cellClicked(int row, int column);

 private:
  void reset(const QString& title);
  // Dashed horizontal lines with legend entries, coloured from the palette's `first_colour` on.
  // After the value axis' range is set: lines closer than a pixel or two share their place in
  // alternating dashes, so that each colour shows.
  void addReferenceLines(const QVector<ReferenceLine>& references, int first_colour);
  // The legend in the plot's top-right corner (the default), or in rows of `columns` under it.
  void legendInside();
  void legendBelow(int columns);

  QCustomPlot* plot_;
  QCPColorScale* color_scale_ = nullptr;
  // The matrix cell under a point of the plot, (row, column), or (−1, −1) off the matrix on view.
  QPoint cellAt(const QPoint& point) const;

  int matrix_rows_ = 0, matrix_cols_ = 0;  // the matrix on view (0 × 0: none), for cellClicked
  QVector<QStringList> cell_tips_;         // setCellToolTips' (empty: none)
  QCPAxisRect* main_rect_;             // the single plot's axes; the first cell of a small-multiples grid
  QCPLayoutGrid* multiples_ = nullptr;  // the grid while small multiples are shown
  QString title_;                       // as given; the element shows it wrapped
  QPointer<QCPTextElement> title_element_;
  void wrapTitle();  // the title's lines at its column's width, after each layout
};

}  // namespace aw
