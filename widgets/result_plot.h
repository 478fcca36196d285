// widgets/result_plot.h — the plot beside an analysis table: grouped bars (Table 1 Ratio per layer),
// curves (pruning, diagonal sweep) or a layers × heads matrix (ablation Δ, importance), on one
// QCustomPlot that can be saved as PNG or PDF.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPColorScale;

namespace aw {

struct PlotSeries {
  QString name;
  QVector<double> x;
  QVector<double> y;
};

struct ReferenceLine {  // a horizontal dashed line, e.g. the unablated baseline or DiagFreeMask
  QString name;
  double y = 0.0;
};

class ResultPlot : public QWidget {
  Q_OBJECT

 public:
  explicit ResultPlot(QWidget* parent = nullptr);

  void clear(const QString& message = {});
  // One group of bars per category, one bar per series (series[i].y[c] = value for category c).
  void showBars(const QString& title, const QStringList& categories, const QVector<PlotSeries>& series,
                const QString& value_label);
  void showCurves(const QString& title, const QVector<PlotSeries>& series, const QString& x_label,
                  const QString& y_label, const QVector<ReferenceLine>& references = {});
  // values[row][col] (NaN = no such head); diverging: a blue–white–red map symmetric around 0,
  // else viridis over the values' range.
  void showMatrix(const QString& title, const QVector<QVector<double>>& values, const QString& row_prefix,
                  const QString& col_prefix, const QString& scale_label, bool diverging);

  bool savePng(const QString& path);
  bool savePdf(const QString& path);
  QCustomPlot* plot() const { return plot_; }
  bool isEmpty() const;

 private:
  void reset(const QString& title);

  QCustomPlot* plot_;
  QCPColorScale* color_scale_ = nullptr;
};

}  // namespace aw
