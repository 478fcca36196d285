// widgets/result_plot.cpp — see result_plot.h.
#include "widgets/result_plot.h"

#include "widgets/color_maps.h"
#include "widgets/wrapped_title.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

// Colour-blind-safe qualitative colours (Okabe & Ito).
const QColor kSeriesColours[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73),
                                 QColor(0xcc, 0x79, 0xa7), QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00)};

}  // namespace

QColor series_colour(int index) { return kSeriesColours[index % 6]; }

ResultPlot::ResultPlot(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), main_rect_(plot_->axisRect()) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumSize(320, 220);  // with the LAMA tab's views under it, the window still fits 768 px
  clear("Run the analysis to see its plot");
  // Cells are centred on 1 … cols across and 1 … rows up.
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    const auto cell = cellAt(event->pos());
    if (cell.x() >= 0) Q_EMIT cellClicked(cell.x(), cell.y());
  });
  // A tip stays while the pointer rests on its cell (a minute, renewed by any move), not the few
  // seconds Qt gives a tooltip; off the cells it goes.
  // The title's column is known only once the plot has laid itself out at its size: wrap it then,
  // and lay out once more when its line count changed (the axes move down).
  connect(plot_, &QCustomPlot::afterLayout, this, &ResultPlot::wrapTitle);
  plot_->setMouseTracking(true);
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    const auto cell = cellAt(event->pos());
    const auto tip = cell.x() >= 0 ? cellToolTip(cell.x(), cell.y()) : QString();
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(event->globalPosition().toPoint(), tip, plot_, {}, 60000);
  });
}

QPoint ResultPlot::cellAt(const QPoint& point) const {
  if (matrix_rows_ == 0 || !main_rect_->rect().contains(point)) return {-1, -1};
  const int column = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(point.x()))) - 1;
  const int row = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(point.y()))) - 1;
  if (row < 0 || row >= matrix_rows_ || column < 0 || column >= matrix_cols_) return {-1, -1};
  return {row, column};
}

void ResultPlot::setCellToolTips(const QVector<QStringList>& tips) { cell_tips_ = tips; }

QString ResultPlot::cellToolTip(int row, int column) const {
  if (row < 0 || row >= cell_tips_.size() || column < 0 || column >= cell_tips_[row].size()) return {};
  return cell_tips_[row][column];
}

void ResultPlot::wrapTitle() {
  if (!title_element_) return;
  const QFontMetrics metrics(title_element_->font());
  const int column = title_element_->outerRect().width();
  const int width = std::max(40, column > 50 ? column - 8 : plot_->width() - 12);
  QStringList lines;
  for (const auto& line : title_.split('\n')) lines += wrapped_line(metrics, line, width);
  const QString text = lines.join('\n');
  if (text == title_element_->text()) return;
  const bool taller = text.count('\n') != title_element_->text().count('\n');
  title_element_->setText(text);
  if (taller) plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool ResultPlot::isEmpty() const { return plot_->plottableCount() == 0; }

void ResultPlot::reset(const QString& title) {
  matrix_rows_ = matrix_cols_ = 0;
  cell_tips_.clear();
  plot_->clearPlottables();
  plot_->clearItems();
  if (multiples_) {
    // The first cell holds the single plot's axis rect, and the legend sits below the grid: keep both,
    // delete the grid with the other cells.
    main_rect_->layout()->take(main_rect_);
    plot_->plotLayout()->remove(multiples_);
    multiples_ = nullptr;
    plot_->plotLayout()->take(plot_->legend);
    plot_->plotLayout()->simplify();
    plot_->plotLayout()->addElement(1, 0, main_rect_);
    main_rect_->insetLayout()->addElement(plot_->legend, Qt::AlignRight | Qt::AlignTop);
    plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot_->legend->setBorderPen(QPen(Qt::black));
  }
  if (color_scale_) {
    plot_->plotLayout()->remove(color_scale_);
    color_scale_ = nullptr;
  }
  legendInside();
  plot_->yAxis2->setVisible(false);
  plot_->yAxis2->setLabel({});
  // Row 0 holds the title, row 1 the axis rect (and the colour scale when there is one).
  if (plot_->plotLayout()->rowCount() < 2) plot_->plotLayout()->insertRow(0);
  if (plot_->plotLayout()->hasElement(0, 0)) plot_->plotLayout()->remove(plot_->plotLayout()->element(0, 0));
  title_ = title;
  title_element_ = new QCPTextElement(plot_, title, QFont(font().family(), 11, QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_element_);
  plot_->plotLayout()->simplify();
  for (auto* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setLabel({});
    axis->setRangeReversed(false);
    axis->grid()->setVisible(true);
    axis->setSubTicks(true);
    axis->setTickLabels(true);
  }
  plot_->xAxis->setTickLabelRotation(0);
  plot_->legend->setVisible(false);
}

void ResultPlot::clear(const QString& message) {
  reset(message);
  plot_->replot();
}

void ResultPlot::showBars(const QString& title, const QStringList& categories, const QVector<PlotSeries>& series,
                          const QString& value_label, const QVector<ReferenceLine>& references) {
  reset(title);
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  for (int c = 0; c < categories.size(); ++c) ticker->addTick(c + 1, categories[c]);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setSubTicks(false);
  plot_->xAxis->grid()->setVisible(false);
  plot_->yAxis->setLabel(value_label);
  auto* group = new QCPBarsGroup(plot_);
  double high = 0, low = 0;
  for (int s = 0; s < series.size(); ++s) {
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setName(series[s].name);
    bars->setPen(Qt::NoPen);
    bars->setBrush(series_colour(s));
    bars->setWidth(0.8 / std::max<int>(1, series.size()));
    bars->setBarsGroup(group);
    QVector<double> keys;
    for (int c = 0; c < series[s].y.size(); ++c) keys << c + 1;
    bars->setData(keys, series[s].y);
    for (double value : series[s].y)
      if (std::isfinite(value)) high = std::max(high, value), low = std::min(low, value);
    if (series[s].low.size() != series[s].y.size() || series[s].high.size() != series[s].y.size()) continue;
    // An interval per bar: whiskers from low to high, centred on the bar wherever the group puts it.
    auto* whiskers = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    whiskers->removeFromLegend();
    whiskers->setDataPlottable(bars);
    QVector<double> below, above;
    for (int c = 0; c < series[s].y.size(); ++c) {
      below << series[s].y[c] - series[s].low[c];
      above << series[s].high[c] - series[s].y[c];
      if (std::isfinite(series[s].high[c])) high = std::max(high, series[s].high[c]);
    }
    whiskers->setData(below, above);
    whiskers->setPen(QPen(Qt::black, 1.2));
  }
  for (const auto& reference : references) high = std::max(high, reference.y), low = std::min(low, reference.y);
  plot_->xAxis->setRange(0.4, categories.size() + 0.6);
  plot_->yAxis->setRange(low * 1.1, high * 1.1 + (high == low ? 1 : 0));
  addReferenceLines(references, series.size());
  plot_->legend->setVisible(series.size() + references.size() > 1);
  // The legend under the plot, where it hides no bar; many bars (one per head) with their labels
  // turned upright so they do not run into each other.
  if (plot_->legend->visible()) legendBelow(3);
  if (categories.size() > 12) plot_->xAxis->setTickLabelRotation(90);
  plot_->replot();
}

void ResultPlot::addReferenceLines(const QVector<ReferenceLine>& references, int first_colour) {
  // Lines within 1.5 % of the axis' span of each other look like one: each gets its turn in the dash.
  const double near = 0.015 * plot_->yAxis->range().size();
  int own_colours = 0;
  for (int r = 0; r < references.size(); ++r) {
    int turn = 0, turns = 0;
    for (int other = 0; other < references.size(); ++other) {
      if (std::abs(references[other].y - references[r].y) > near) continue;
      if (other < r) ++turn;
      ++turns;
    }
    const auto colour = references[r].series >= 0 ? series_colour(references[r].series) : series_colour(first_colour + own_colours++);
    QPen pen(colour, 1.5, Qt::DashLine);
    if (turns > 1) {  // dash 6, then the others' dashes: "a b c a b c …"
      pen.setDashPattern({6, 6.0 * (turns - 1)});
      pen.setDashOffset(-6.0 * turn);
    }
    auto* line = new QCPItemStraightLine(plot_);
    line->point1->setCoords(0, references[r].y);
    line->point2->setCoords(1, references[r].y);
    line->setPen(pen);
    // An empty graph carries the reference's legend entry (a plain dash: the legend shows its colour).
    auto* legend_entry = plot_->addGraph();
    legend_entry->setName(references[r].name);
    legend_entry->setPen(QPen(colour, 1.5, Qt::DashLine));
  }
}

void ResultPlot::legendInside() {
  if (plot_->legend->layout() != plot_->plotLayout()) return;
  plot_->plotLayout()->take(plot_->legend);
  plot_->plotLayout()->simplify();
  main_rect_->insetLayout()->addElement(plot_->legend, Qt::AlignRight | Qt::AlignTop);
  plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot_->legend->setWrap(0);
  plot_->legend->setBorderPen(QPen(Qt::black));
}

void ResultPlot::legendBelow(int columns) {
  if (plot_->legend->layout() != plot_->plotLayout()) {
    main_rect_->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(plot_->plotLayout()->rowCount(), 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(plot_->plotLayout()->rowCount() - 1, 0.001);
  }
  plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // true: the entries already there wrap too
  plot_->legend->setBorderPen(Qt::NoPen);
}

void ResultPlot::showCurves(const QString& title, const QVector<PlotSeries>& series, const QString& x_label,
                            const QString& y_label, const QVector<ReferenceLine>& references,
                            const QString& right_label) {
  reset(title);
  plot_->xAxis->setLabel(x_label);
  plot_->yAxis->setLabel(y_label);
  // Bands first, so every curve draws over them: the lower edge invisible, the upper one filled down to it.
  for (int s = 0; s < series.size(); ++s) {
    const auto& band = series[s];
    if (band.low.size() != band.x.size() || band.high.size() != band.x.size() || band.x.isEmpty()) continue;
    auto* lower = plot_->addGraph();
    lower->setPen(Qt::NoPen);
    lower->setData(band.x, band.low);
    lower->removeFromLegend();
    auto* upper = plot_->addGraph();
    upper->setName(band.band_name.isEmpty() ? band.name + " interval" : band.band_name);
    upper->setPen(Qt::NoPen);
    QColor fill = series_colour(s);
    fill.setAlpha(55);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
    upper->setData(band.x, band.high);
  }
  bool whole_x = true;  // epochs, percentages: ticks on whole numbers only
  for (int s = 0; s < series.size(); ++s) {
    const auto colour = series[s].colour.isValid() ? series[s].colour : series_colour(s);
    auto* graph = plot_->addGraph(plot_->xAxis, series[s].right_axis ? plot_->yAxis2 : plot_->yAxis);
    graph->setName(series[s].name);
    graph->setPen(QPen(colour, 2, series[s].dashed ? Qt::DashLine : Qt::SolidLine));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, Qt::white, 6));
    graph->setData(series[s].x, series[s].y);
    for (double x : series[s].x) whole_x = whole_x && x == std::round(x);
  }
  plot_->rescaleAxes();
  if (whole_x) {
    auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(ticker);
  }
  double low = plot_->yAxis->range().lower, high = plot_->yAxis->range().upper;
  for (const auto& reference : references) low = std::min(low, reference.y), high = std::max(high, reference.y);
  const double pad = (high - low) * 0.08 + 1e-9;
  plot_->yAxis->setRange(low - pad, high + pad);
  addReferenceLines(references, series.size());
  const bool right = std::any_of(series.begin(), series.end(), [](const PlotSeries& s) { return s.right_axis; });
  if (right) {
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(right_label);
    plot_->yAxis2->setTickLabels(true);
    const auto range = plot_->yAxis2->range();
    const double right_pad = range.size() * 0.08 + 1e-9;
    plot_->yAxis2->setRange(range.lower - right_pad, range.upper + right_pad);
  }
  plot_->xAxis->scaleRange(1.08);
  plot_->legend->setVisible(plot_->legend->itemCount() > 1);
  legendBelow(3);
  plot_->replot();
}

void ResultPlot::setValueRange(double low, double high) {
  plot_->yAxis->setRange(low, high);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ResultPlot::showScatter(const QString& title, const QVector<PlotSeries>& series, const QString& x_label,
                             const QString& y_label) {
  reset(title);
  plot_->xAxis->setLabel(x_label);
  plot_->yAxis->setLabel(y_label);
  for (int s = 0; s < series.size(); ++s) {
    const auto colour = series[s].colour.isValid() ? series[s].colour : series_colour(s);
    auto* graph = plot_->addGraph();
    graph->setName(series[s].name);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 7));
    graph->setData(series[s].x, series[s].y);
  }
  plot_->rescaleAxes();
  plot_->xAxis->scaleRange(1.1);  // room around the outermost points
  plot_->yAxis->scaleRange(1.1);
  plot_->legend->setVisible(series.size() > 1);
  plot_->replot();
}

void ResultPlot::showSmallMultiples(const QString& title, const QVector<SmallPlot>& plots, int columns,
                                    const QString& x_label, const QString& y_label) {
  reset(title);
  if (plots.isEmpty()) {
    plot_->replot();
    return;
  }
  columns = std::clamp<int>(columns, 1, plots.size());
  plot_->plotLayout()->take(main_rect_);
  multiples_ = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(1, 0, multiples_);
  QMap<QString, QColor> colour_by_name;  // one colour per series name across the plots
  QMap<QString, QCPGraph*> legend_graph;  // the graph that stands for each name in the legend
  for (int i = 0; i < plots.size(); ++i) {
    auto* cell = new QCPLayoutGrid;  // the plot's title above its axes
    multiples_->addElement(i / columns, i % columns, cell);
    auto* rect = i == 0 ? main_rect_ : new QCPAxisRect(plot_);
    cell->addElement(0, 0, new QCPTextElement(plot_, plots[i].title, QFont(font().family(), 9, QFont::Bold)));
    cell->addElement(1, 0, rect);
    cell->setRowStretchFactor(0, 0.001);
    cell->setRowSpacing(0);
    auto* x_axis = rect->axis(QCPAxis::atBottom);
    auto* y_axis = rect->axis(QCPAxis::atLeft);
    rect->axis(QCPAxis::atTop)->setVisible(false);
    rect->axis(QCPAxis::atRight)->setVisible(false);
    // Small plots: a few readable numbers in a smaller font rather than many overlapping ones (the y
    // axis is the short one: two ticks).
    x_axis->ticker()->setTickCount(3);
    y_axis->ticker()->setTickCount(2);
    for (auto* axis : {x_axis, y_axis}) axis->setTickLabelFont(QFont(font().family(), 8));
    x_axis->setLabel(i + columns >= plots.size() ? x_label : QString());  // the bottom plot of each column
    y_axis->setLabel(i % columns == 0 ? y_label : QString());
    for (const auto& series : plots[i].series) {
      if (!colour_by_name.contains(series.name))
        colour_by_name[series.name] = series.colour.isValid() ? series.colour : series_colour(colour_by_name.size());
      auto* graph = plot_->addGraph(x_axis, y_axis);
      graph->setName(series.name);
      graph->setPen(QPen(colour_by_name[series.name], 1.6));
      graph->setData(series.x, series.y);
      graph->removeFromLegend();
      if (!legend_graph.contains(series.name)) legend_graph[series.name] = graph;
    }
    if (plots[i].series.isEmpty()) {  // nothing to draw: a blank frame rather than made-up numbers
      x_axis->setTickLabels(false);
      y_axis->setTickLabels(false);
      continue;
    }
    x_axis->rescale();
    y_axis->rescale();
    y_axis->setRange(0, std::max(y_axis->range().upper * 1.12, 1e-9));
  }
  // One legend row under the grid, names in sorted order (ratings 1 ★ … 5 ★ read left to right).
  for (auto* graph : legend_graph) graph->addToLegend();
  main_rect_->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->addElement(2, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(2, 0.001);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setVisible(!legend_graph.isEmpty());
  plot_->replot();
}

void ResultPlot::showMatrix(const QString& title, const QVector<QVector<double>>& values, const QString& row_prefix,
                            const QString& col_prefix, const QString& scale_label, bool diverging,
                            const QStringList& row_labels, const QVector<QVector<bool>>& marks) {
  reset(title);
  int cols = 0;
  double low = INFINITY, high = -INFINITY;
  for (const auto& row : values) {
    cols = std::max<int>(cols, row.size());
    for (double value : row)
      if (std::isfinite(value)) low = std::min(low, value), high = std::max(high, value);
  }
  const int rows = values.size();
  matrix_rows_ = rows, matrix_cols_ = cols;
  auto* map = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map->setInterpolate(false);
  map->data()->setSize(cols, rows);
  map->data()->setRange(cell_centre_range(cols, 1), cell_centre_range(rows, 1));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) map->data()->setCell(c, r, c < values[r].size() ? values[r][c] : NAN);
  color_scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(1, 1, color_scale_);
  color_scale_->axis()->setLabel(scale_label);
  map->setColorScale(color_scale_);
  auto gradient = diverging ? diverging_gradient() : viridis_gradient();
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  color_scale_->setGradient(gradient);
  if (!std::isfinite(low)) low = 0, high = 1;
  if (diverging) {
    const double bound = std::max({std::abs(low), std::abs(high), 1e-12});
    color_scale_->setDataRange(QCPRange(-bound, bound));
  } else {
    color_scale_->setDataRange(QCPRange(low, high > low ? high : low + 1));
  }
  auto label_axis = [](QCPAxis* axis, int count, const QString& prefix, const QStringList& labels = {}) {
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    const int step = std::max(1, (count + 23) / 24);
    for (int i = 1; i <= count; i += step)
      ticker->addTick(i, i <= labels.size() ? labels[i - 1] : prefix + QString::number(i));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    axis->grid()->setVisible(false);
  };
  label_axis(plot_->xAxis, cols, col_prefix);
  label_axis(plot_->yAxis, rows, row_prefix, row_labels);
  for (int r = 0; r < std::min<int>(rows, marks.size()); ++r)
    for (int c = 0; c < std::min<int>(cols, marks[r].size()); ++c) {
      if (!marks[r][c]) continue;
      auto* star = new QCPItemText(plot_);
      star->position->setCoords(c + 1, r + 1);
      star->setText("*");
      star->setFont(QFont(font().family(), 14, QFont::Bold));
      star->setColor(Qt::black);
      star->setClipToAxisRect(true);
    }
  plot_->yAxis->setRangeReversed(true);  // layer 1 on top, like the heads panel
  plot_->xAxis->setRange(0.5, cols + 0.5);
  plot_->yAxis->setRange(0.5, rows + 0.5);
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  color_scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  plot_->replot();
}

void ResultPlot::setColumnLabels(const QStringList& labels) {
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  const int step = std::max(1, (static_cast<int>(labels.size()) + 31) / 32);
  for (int i = 0; i < labels.size(); i += step) ticker->addTick(i + 1, labels[i]);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setTickLabelRotation(labels.size() > 6 ? -60 : 0);
  plot_->replot();
}

void ResultPlot::addCellTexts(const QVector<QStringList>& texts) {
  QFont small(font().family(), 7);
  // Each text fits its cell as the plot is laid out now (elided, "…"); cells narrower than four
  // letters get none (colours alone read better than a row of "a…").
  plot_->replot();
  const int cells = std::max(1, matrix_cols_);
  const int room = plot_->axisRect()->width() / cells - 4;
  if (room < QFontMetrics(small).horizontalAdvance("abcd")) return;
  const QFontMetrics metrics(small);
  for (int r = 0; r < texts.size(); ++r)
    for (int c = 0; c < texts[r].size(); ++c) {
      if (texts[r][c].isEmpty()) continue;
      auto* text = new QCPItemText(plot_);
      text->position->setCoords(c + 1, r + 1);
      text->setText(metrics.elidedText(texts[r][c], Qt::ElideRight, room));
      text->setFont(small);
      text->setColor(Qt::black);
      text->setBrush(QColor(255, 255, 255, 190));
      text->setPadding(QMargins(1, 0, 1, 0));
      text->setClipToAxisRect(true);
    }
  plot_->replot();
}

bool ResultPlot::savePng(const QString& path) { return plot_->savePng(path, 0, 0, 2.0); }
bool ResultPlot::savePdf(const QString& path) { return plot_->savePdf(path); }

}  // namespace aw
