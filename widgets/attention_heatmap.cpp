// widgets/attention_heatmap.cpp — see attention_heatmap.h.
#include "widgets/attention_heatmap.h"

#include "widgets/color_maps.h"
#include "widgets/heatmap_region.h"
#include "widgets/wrapped_title.h"

#include <QAction>
#include <QGraphicsOpacityEffect>
#include <QLabel>
#include <QMouseEvent>
#include <QRubberBand>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtMath>
#include <qcustomplot.h>

#include <cmath>

namespace aw {
namespace {

constexpr int kMaxLabelledTicks = 48;  // beyond this, every k-th token is labelled so labels stay legible

// Under the hover readout, so the zoom is found by whoever hovers over the map.
const QString kNavigationHint = "wheel: zoom · drag: pan · Shift+drag: zoom to a box · double-click: whole map · "
                                "right-click: export, copy";

QString clipped(const QString& label) { return label.size() > 14 ? label.left(13) + QChar(0x2026) : label; }

}  // namespace

AttentionHeatmap::AttentionHeatmap(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  // Shown instead of the plot while there is no matrix: an empty plot was a dark block under "layer 0".
  placeholder_ = new QLabel(placeholder_text_);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  placeholder_->setStyleSheet("color: #555555; font-size: 11pt;");
  placeholder_->hide();
  layout->addWidget(placeholder_);

  color_map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  color_map_->setInterpolate(false);

  // Row 0: the title; row 1: the matrix and its colour scale.
  plot_->plotLayout()->insertRow(0);
  title_ = new QCPTextElement(plot_, QString(), QFont(font().family(), 10, QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);
  color_scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(1, 1, color_scale_);
  color_scale_->setType(QCPAxis::atRight);
  color_scale_->axis()->setLabel("attention weight");
  color_map_->setColorScale(color_scale_);
  // Set on the scale, after linking: linking hands the scale's own defaults to the map.
  color_scale_->setGradient(viridis_gradient());
  color_scale_->setDataRange(QCPRange(0.0, 1.0));
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  color_scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

  plot_->yAxis->setRangeReversed(true);  // query 0 on top, as matrices are read
  plot_->xAxis->setTickLabelRotation(60);
  plot_->xAxis->setLabel("key (attended token)");
  plot_->yAxis->setLabel("query (attending token)");
  for (auto* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    axis->setSubTicks(false);
    axis->grid()->setVisible(false);
  }
  plot_->setMouseTracking(true);
  plot_->installEventFilter(this);
  plot_->setToolTip(kNavigationHint);  // where the pointer is off the cells (axes, title)
  rubber_band_ = new QRubberBand(QRubberBand::Rectangle, plot_);
  click_timer_.setSingleShot(true);
  connect(&click_timer_, &QTimer::timeout, this, [this] {
    if (clicked_cell_.x() >= 0 && clicked_cell_.y() < matrix_.rows && clicked_cell_.x() < matrix_.cols)
      Q_EMIT cellClicked(clicked_cell_.y(), clicked_cell_.x());
  });
  found_outline_ = new QCPItemRect(plot_);
  found_outline_->setPen(QPen(Qt::red, 2));
  found_outline_->setBrush(Qt::NoBrush);
  found_outline_->setClipToAxisRect(true);
  found_outline_->setVisible(false);

  export_action_ = new QAction("Export view…", this);
  export_action_->setToolTip("The visible region, its title and colour scale as PNG, SVG or PDF");
  connect(export_action_, &QAction::triggered, this, &AttentionHeatmap::exportWithDialog);
  copy_action_ = new QAction("Copy region", this);
  copy_action_->setToolTip("The visible cells as tab-separated values, with their tokens");
  connect(copy_action_, &QAction::triggered, this, &AttentionHeatmap::copyRegion);
  reset_action_ = new QAction("Reset zoom", this);
  connect(reset_action_, &QAction::triggered, this, &AttentionHeatmap::resetZoom);
  for (auto* action : viewActions()) action->setEnabled(false);  // until there is a map
  plot_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(plot_, &QWidget::customContextMenuRequested, this, &AttentionHeatmap::showContextMenu);
  // The title's column is known only once the plot has laid itself out at its size, which can come
  // after this widget's own resize (a map given before its window was shown kept a title elided to
  // the initial width): elide again after every layout, before the drawing uses it. The labels'
  // thinning depends on the axes' lengths the same way (of two maps side by side, one kept labels
  // thinned for the size it had before), but the axes took their ticks before this layout: when they
  // change, once more.
  connect(plot_, &QCustomPlot::afterLayout, this, [this] {
    elideTitle();
    const bool changed = updateTicks();
    if (changed && !ticks_replotted_) plot_->replot(QCustomPlot::rpQueuedReplot);
    ticks_replotted_ = changed && !ticks_replotted_;  // once in a row, should labels move the margins to and fro
  });

  stale_note_ = new QLabel(this);
  stale_note_->setAlignment(Qt::AlignCenter);
  stale_note_->setStyleSheet("background: rgba(255, 255, 255, 220); border: 1px solid #888; border-radius: 4px;"
                             "padding: 6px 12px; font-weight: bold;");
  stale_note_->hide();
}

void AttentionHeatmap::setPlaceholder(const QString& text) {
  placeholder_text_ = text;
  updatePlaceholder();
}

void AttentionHeatmap::updatePlaceholder() {
  // Without a matrix the note ("running …", a layer's error) is the placeholder's text.
  const bool empty = matrix_.rows == 0;
  plot_->setVisible(!empty);
  placeholder_->setVisible(empty);
  placeholder_->setText(stale_text_.isEmpty() ? placeholder_text_ : stale_text_);
  stale_note_->setVisible(!empty && !stale_text_.isEmpty());
}

void AttentionHeatmap::setStale(const QString& note) {
  stale_text_ = note;
  if (note.isEmpty()) {
    plot_->setGraphicsEffect(nullptr);  // deletes the effect
    updatePlaceholder();
    return;
  }
  if (!plot_->graphicsEffect()) {
    auto* fade = new QGraphicsOpacityEffect(plot_);
    fade->setOpacity(0.35);
    plot_->setGraphicsEffect(fade);
  }
  stale_note_->setText(note);
  stale_note_->adjustSize();
  stale_note_->move((width() - stale_note_->width()) / 2, (height() - stale_note_->height()) / 2);
  stale_note_->raise();
  updatePlaceholder();
}

bool AttentionHeatmap::isStale() const { return !stale_text_.isEmpty(); }

void AttentionHeatmap::setMatrix(const AttentionMatrix& matrix) {
  const bool same_size = matrix.rows == matrix_.rows && matrix.cols == matrix_.cols && matrix.rows > 0;
  matrix_ = matrix;
  auto* data = color_map_->data();
  data->setSize(matrix.cols, matrix.rows);
  // Cell (col, row) is centred on integer coordinates so ticks sit under the tokens.
  data->setRange(cell_centre_range(matrix.cols, 0), cell_centre_range(matrix.rows, 0));
  if (!same_size) {
    found_outline_->setVisible(false);
    last_found_ = -1;
  }
  paintCells();
  updatePlaceholder();
  const auto keys = same_size ? plot_->xAxis->range() : QCPRange(-0.5, matrix.cols - 0.5);
  const auto queries = same_size ? plot_->yAxis->range() : QCPRange(-0.5, matrix.rows - 0.5);
  setView(keys.lower, keys.upper, queries.lower, queries.upper);
}

void AttentionHeatmap::setColourScale(ColourScale scale) {
  if (scale == scale_) return;
  scale_ = scale;
  paintCells();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}


void AttentionHeatmap::paintCells() {
  const auto scaled = scale_weights(matrix_, scale_);
  auto* data = color_map_->data();
  for (int row = 0; row < matrix_.rows; ++row)
    for (int col = 0; col < matrix_.cols; ++col) data->setCell(col, row, scaled.values[static_cast<size_t>(row) * matrix_.cols + col]);
  color_scale_->setDataScaleType(scaled.logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (scaled.logarithmic) color_scale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  else color_scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  color_scale_->setDataRange(QCPRange(scaled.low, scaled.high));
  color_scale_->axis()->setLabel(scaled.value_label);
  // On a line of its own: appended to the title, it pushed a side-by-side map's title past its edges.
  scale_caption_ = scaled.caption;
  full_title_ = matrix_.title.isEmpty() || matrix_.rows == 0 ? matrix_.title : matrix_.title + "\n" + scale_caption_;
  elideTitle();
}

void AttentionHeatmap::setTitle(const QString& title) {
  if (title == matrix_.title) return;
  matrix_.title = title;
  full_title_ = title.isEmpty() || matrix_.rows == 0 ? title : title + "\n" + scale_caption_;
  elideTitle();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void AttentionHeatmap::elideTitle() {
  const QFontMetrics metrics(title_->font());
  // The title sits over the matrix's column only (the colour scale has its own): that column's width
  // once laid out, else the plot's.
  const int column = title_->outerRect().width();
  const int width = std::max(40, column > 50 ? column - 8 : plot_->width() - 12);
  QStringList lines;
  for (const auto& line : full_title_.split('\n')) lines += wrapped_line(metrics, line, width);
  const int natural = static_cast<int>(lines.size());
  while (lines.size() < minimum_title_lines_) lines += QStringLiteral(" ");  // a blank line keeps its height
  title_->setText(lines.join('\n'));
  if (natural != title_lines_) {
    title_lines_ = natural;
    Q_EMIT titleLinesChanged(natural);
  }
}

void AttentionHeatmap::setMinimumTitleLines(int lines) {
  if (lines == minimum_title_lines_) return;
  minimum_title_lines_ = lines;
  elideTitle();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool AttentionHeatmap::updateTicks() {
  // Label every k-th visible token so neighbouring labels never overlap: at most kMaxLabelledTicks,
  // and no closer than one text line at the axis' current length in pixels.
  const int line = QFontMetrics(plot_->xAxis->tickLabelFont()).height();
  const QRect visible = visibleCells();
  auto label_axis = [line](QCPAxis* axis, const QStringList& labels, int first, int count, int pixels) {
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(axis->ticker());
    const auto before = ticker->ticks();
    ticker->clear();
    // Rotated labels lie closer to each other than their spacing along the axis: a line apart at 60°
    // they overlapped.
    const double rotation = std::abs(qDegreesToRadians(axis->tickLabelRotation()));
    const int spacing = rotation > 0 ? static_cast<int>(std::ceil(line / std::sin(rotation))) : line;
    for (const int cell : labelled_cells(first, count, pixels, spacing, kMaxLabelledTicks))
      ticker->addTick(cell, clipped(labels.value(cell)));
    return ticker->ticks() != before;
  };
  const bool keys = label_axis(plot_->xAxis, matrix_.col_labels, visible.x(), visible.width(), plot_->axisRect()->width());
  const bool queries = label_axis(plot_->yAxis, matrix_.row_labels, visible.y(), visible.height(), plot_->axisRect()->height());
  return keys || queries;
}

void AttentionHeatmap::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  stale_note_->move((width() - stale_note_->width()) / 2, (height() - stale_note_->height()) / 2);
  plot_->replot();  // lays the axis rect out at the new size first
  elideTitle();
  updateTicks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString AttentionHeatmap::cellText(int row, int col) const {
  if (row < 0 || col < 0 || row >= matrix_.rows || col >= matrix_.cols) return {};
  const float weight = matrix_.at(row, col);
  // 0.123 as before; below 0.01 four significant digits in scientific notation (0.000 said nothing).
  const auto text = weight == 0.0f || weight >= 1e-2f ? QString::number(weight, 'f', 3) : QString::number(weight, 'e', 3);
  return QString("%1 → %2: %3").arg(matrix_.row_labels.value(row), matrix_.col_labels.value(col), text);
}

QString AttentionHeatmap::hoverText(const QPoint& cell) const {
  // Escaped: tokens such as <s> would otherwise read as markup.
  return QString("%1<br><small style=\"color: gray\">%2</small>")
      .arg(cellText(cell.y(), cell.x()).toHtmlEscaped(), kNavigationHint);
}

QPoint AttentionHeatmap::cellAt(const QPoint& position) const {
  if (matrix_.rows == 0 || !plot_->axisRect()->rect().contains(position)) return {-1, -1};
  double key = 0, value = 0;
  color_map_->pixelsToCoords(position, key, value);
  int col = -1, row = -1;
  color_map_->data()->coordToCell(key, value, &col, &row);
  if (col < 0 || row < 0 || col >= matrix_.cols || row >= matrix_.rows) return {-1, -1};
  return {col, row};
}

bool AttentionHeatmap::eventFilter(QObject* watched, QEvent* event) {
  if (watched != plot_) return QWidget::eventFilter(watched, event);
  if (handleMouse(event)) return true;
  if (event->type() == QEvent::MouseMove) {
    const auto* mouse = static_cast<QMouseEvent*>(event);
    const auto cell = cellAt(mouse->position().toPoint());
    if (cell.x() >= 0) {
      QToolTip::showText(mouse->globalPosition().toPoint(), hoverText(cell), plot_);
      Q_EMIT cellHovered(cell.y(), cell.x(), matrix_.at(cell.y(), cell.x()));
    } else {
      QToolTip::hideText();
    }
  } else if (event->type() == QEvent::ToolTip) {
    // The pointer rests: Qt asks for the widget's own tooltip (the navigation hint), which would replace
    // the weight being read. Over a cell the readout stays; off the cells the hint shows.
    const auto* help = static_cast<QHelpEvent*>(event);
    const auto cell = cellAt(help->pos());
    if (cell.x() >= 0) {
      QToolTip::showText(help->globalPos(), hoverText(cell), plot_);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace aw
