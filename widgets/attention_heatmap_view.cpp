// widgets/attention_heatmap_view.cpp — the heatmap's second half (see attention_heatmap.h): zoom, pan
// and box zoom by mouse, the visible region and its signal, finding a token, exporting the view and
// copying its cells, and the context menu that offers them. The arithmetic is in heatmap_region.h.
#include "widgets/attention_heatmap.h"
#include "widgets/export_folder.h"

#include "widgets/heatmap_region.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QRubberBand>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

constexpr double kWheelZoom = 0.8;  // the visible span per wheel notch: five notches halve it twice
constexpr double kPngScale = 2.0;   // an exported PNG has twice the screen's pixels, sharp when printed

CellRange cell_range(const QCPRange& range) { return {range.lower, range.upper}; }

// An axis' title, with the tokens on show when they are not all: "key (attended token) · 5–36 of 110"
// (numbered from 1, as the predictions' positions; "2,049–2,560 of 8,192" past a thousand), so an
// exported view says which region it is.
QString axis_title(const QString& name, int first, int count, int total) {
  if (count >= total) return name;
  const QLocale english(QLocale::English);
  return QString("%1 · %2–%3 of %4").arg(name, english.toString(first + 1), english.toString(first + count), english.toString(total));
}

// A range of `span` cells around `centre`, no wider than it is now.
QCPRange centred(const QCPRange& now, double centre, double span) {
  const double width = std::min(now.size(), span);
  return {centre - width / 2, centre + width / 2};
}

}  // namespace

QRect AttentionHeatmap::visibleCells() const {
  if (matrix_.rows == 0 || matrix_.cols == 0) return {};
  const auto [first_col, cols] = visible_span(cell_range(plot_->xAxis->range()), matrix_.cols);
  const auto [first_row, rows] = visible_span(cell_range(plot_->yAxis->range()), matrix_.rows);
  return {first_col, first_row, cols, rows};
}

bool AttentionHeatmap::isZoomed() const {
  constexpr double kRounding = 1e-6;
  return matrix_.rows > 0 && (plot_->xAxis->range().size() < matrix_.cols - kRounding ||
                              plot_->yAxis->range().size() < matrix_.rows - kRounding);
}

void AttentionHeatmap::setView(double key_lower, double key_upper, double query_lower, double query_upper) {
  const auto keys = clamped_range({key_lower, key_upper}, matrix_.cols, kMinVisibleCells);
  const auto queries = clamped_range({query_lower, query_upper}, matrix_.rows, kMinVisibleCells);
  plot_->xAxis->setRange(keys.lower, keys.upper);
  plot_->yAxis->setRange(queries.lower, queries.upper);
  updateTicks();
  plot_->replot(QCustomPlot::rpQueuedReplot);
  reset_action_->setEnabled(isZoomed());
  copy_action_->setEnabled(matrix_.rows > 0);
  export_action_->setEnabled(matrix_.rows > 0);
  const QRect now = visibleCells();
  const bool region = matrix_.text_length > 0;  // numbered by the text, not by the region's cells
  plot_->xAxis->setLabel(axis_title(matrix_.col_axis.isEmpty() ? "key (attended token)" : matrix_.col_axis,
                                    matrix_.first_col + now.x(), now.width(), region ? matrix_.text_length : matrix_.cols));
  plot_->yAxis->setLabel(axis_title(matrix_.row_axis.isEmpty() ? "query (attending token)" : matrix_.row_axis,
                                    matrix_.first_row + now.y(), now.height(), region ? matrix_.text_length : matrix_.rows));
  if (now != visible_) {
    visible_ = now;
    Q_EMIT visibleCellsChanged(now);
  }
}

void AttentionHeatmap::setVisibleCells(const QRect& cells) {
  setView(cells.left() - 0.5, cells.right() + 0.5, cells.top() - 0.5, cells.bottom() + 0.5);
}

void AttentionHeatmap::zoomBy(double factor, const QPointF& around) {
  const auto keys = zoomed_range(cell_range(plot_->xAxis->range()), factor, around.x());
  const auto queries = zoomed_range(cell_range(plot_->yAxis->range()), factor, around.y());
  setView(keys.lower, keys.upper, queries.lower, queries.upper);
}

void AttentionHeatmap::resetZoom() { setView(-0.5, matrix_.cols - 0.5, -0.5, matrix_.rows - 0.5); }

QPoint AttentionHeatmap::findToken(const QString& text, int after) const {
  return next_token_match(matrix_, text, after);
}

void AttentionHeatmap::showToken(const QPoint& token) {
  if (token.x() < 0 && token.y() < 0) return;
  const auto keys_now = plot_->xAxis->range(), queries_now = plot_->yAxis->range();
  // An axis where the token did not match keeps its centre but zooms in alike, so cells stay square-ish.
  const auto keys = centred(keys_now, token.x() >= 0 ? token.x() : keys_now.center(), kFoundTokenCells);
  const auto queries = centred(queries_now, token.y() >= 0 ? token.y() : queries_now.center(), kFoundTokenCells);
  // The outline: the cell where the token's row and column cross, else its row or column.
  found_outline_->topLeft->setCoords(token.x() >= 0 ? token.x() - 0.5 : -0.5, token.y() >= 0 ? token.y() - 0.5 : -0.5);
  found_outline_->bottomRight->setCoords(token.x() >= 0 ? token.x() + 0.5 : matrix_.cols - 0.5,
                                         token.y() >= 0 ? token.y() + 0.5 : matrix_.rows - 0.5);
  found_outline_->setVisible(true);
  setView(keys.lower, keys.upper, queries.lower, queries.upper);
}

QRect AttentionHeatmap::outlinedCells() const {
  if (!found_outline_->visible()) return {};
  const auto top_left = found_outline_->topLeft->coords(), bottom_right = found_outline_->bottomRight->coords();
  return QRect(QPoint(static_cast<int>(std::lround(top_left.x() + 0.5)), static_cast<int>(std::lround(top_left.y() + 0.5))),
               QPoint(static_cast<int>(std::lround(bottom_right.x() - 0.5)),
                      static_cast<int>(std::lround(bottom_right.y() - 0.5))));
}

QPoint AttentionHeatmap::findNextToken(const QString& text) {
  if (text != last_find_text_) last_found_ = -1;
  last_find_text_ = text;
  const QPoint match = findToken(text, last_found_);
  if (match.x() < 0 && match.y() < 0) return match;
  last_found_ = std::max(match.x(), match.y());
  showToken(match);
  return match;
}

QString AttentionHeatmap::exportView(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png" && suffix != "svg" && suffix != "pdf")
    return QString("cannot export to '%1': the name must end in .png, .svg or .pdf").arg(path);
  plot_->replot();  // lays out what a queued replot has not drawn yet
  bool written = false;
  if (suffix == "png") {
    written = plot_->savePng(path, 0, 0, kPngScale);
  } else if (suffix == "pdf") {
    written = plot_->savePdf(path, 0, 0, QCP::epAllowCosmetic, QString(), full_title_);
  } else {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(plot_->size());
    svg.setViewBox(plot_->rect());
    svg.setTitle(full_title_);
    QCPPainter painter;
    if (painter.begin(&svg)) {
      painter.setMode(QCPPainter::pmVectorized);
      plot_->toPainter(&painter, plot_->width(), plot_->height());
      written = painter.end();
    }
  }
  // QSvgGenerator says nothing when it cannot open its file: what is on disk decides.
  if (!written || QFileInfo(path).size() == 0) return QString("could not write '%1'").arg(path);
  return {};
}

QString AttentionHeatmap::regionText() const { return region_tsv(matrix_, visibleCells()); }

void AttentionHeatmap::copyRegion() const { QApplication::clipboard()->setText(regionText()); }

QString AttentionHeatmap::setRegionDetail(const QRect& cells, const AttentionMatrix& detail) {
  if (cells.isEmpty() || !QRect(0, 0, matrix_.cols, matrix_.rows).contains(cells))
    return QString("queries %1–%2, keys %3–%4 are not all inside the %5×%6 map")
        .arg(cells.top()).arg(cells.bottom()).arg(cells.left()).arg(cells.right()).arg(matrix_.rows).arg(matrix_.cols);
  if (detail.rows != cells.height() || detail.cols != cells.width() ||
      detail.weights.size() != static_cast<size_t>(detail.rows) * detail.cols)
    return QString("detail of %1×%2 (%3 weights) does not fill a region of %4×%5 cells")
        .arg(detail.rows).arg(detail.cols).arg(detail.weights.size()).arg(cells.height()).arg(cells.width());
  for (int row = 0; row < detail.rows; ++row)
    std::copy_n(detail.weights.begin() + static_cast<std::ptrdiff_t>(row) * detail.cols, detail.cols,
                matrix_.weights.begin() + static_cast<std::ptrdiff_t>(cells.y() + row) * matrix_.cols + cells.x());
  paintCells();
  plot_->replot(QCustomPlot::rpQueuedReplot);
  return {};
}

QList<QAction*> AttentionHeatmap::viewActions() const { return {export_action_, copy_action_, reset_action_}; }

void AttentionHeatmap::showContextMenu(const QPoint& position) {
  QMenu menu(this);
  menu.addActions(viewActions());
  menu.exec(plot_->mapToGlobal(position));
}

void AttentionHeatmap::exportWithDialog() {
  QString filter;
  const QString path = QFileDialog::getSaveFileName(this, "Export view", suggested_export_path("attention.png"),
                                                    "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)", &filter);
  if (path.isEmpty()) return;
  // A name typed without a suffix takes the chosen filter's.
  const QString named = QFileInfo(path).suffix().isEmpty() ? path + filter.section("*", 1, 1).chopped(1) : path;
  const QString error = exportView(named);
  if (!error.isEmpty()) QMessageBox::warning(this, "Export view", error);
  else remember_export(named);
}

bool AttentionHeatmap::handleMouse(QEvent* event) {
  const auto type = event->type();
  if (type == QEvent::Wheel) {
    const auto* wheel = static_cast<QWheelEvent*>(event);
    const QPoint at = wheel->position().toPoint();
    const double notches = wheel->angleDelta().y() / 120.0;
    if (matrix_.rows == 0 || notches == 0 || !plot_->axisRect()->rect().contains(at)) return false;
    zoomBy(std::pow(kWheelZoom, notches), {plot_->xAxis->pixelToCoord(at.x()), plot_->yAxis->pixelToCoord(at.y())});
    return true;
  }
  if (type != QEvent::MouseButtonPress && type != QEvent::MouseMove && type != QEvent::MouseButtonRelease &&
      type != QEvent::MouseButtonDblClick)
    return false;
  const auto* mouse = static_cast<QMouseEvent*>(event);
  const QPoint at = mouse->position().toPoint();
  if (type == QEvent::MouseButtonDblClick) {
    if (mouse->button() != Qt::LeftButton || matrix_.rows == 0) return false;
    click_timer_.stop();  // its first click was not a click on a cell
    resetZoom();
    return true;
  }
  if (type == QEvent::MouseButtonPress) {
    if (mouse->button() != Qt::LeftButton || matrix_.rows == 0 || !plot_->axisRect()->rect().contains(at)) return false;
    drag_ = mouse->modifiers().testFlag(Qt::ShiftModifier) ? Drag::Box : Drag::Pan;
    dragged_ = false;
    press_position_ = at;
    press_key_lower_ = plot_->xAxis->range().lower;
    press_key_upper_ = plot_->xAxis->range().upper;
    press_query_lower_ = plot_->yAxis->range().lower;
    press_query_upper_ = plot_->yAxis->range().upper;
    return true;
  }
  if (drag_ == Drag::None) return false;
  const QPoint moved = at - press_position_;
  if (type == QEvent::MouseMove) {
    // A click that wobbles a pixel or two is still a click.
    if (!dragged_ && moved.manhattanLength() < QApplication::startDragDistance()) return true;
    dragged_ = true;
    if (drag_ == Drag::Box) {
      rubber_band_->setGeometry(QRect(press_position_, at).normalized());
      rubber_band_->show();
      return true;
    }
    plot_->setCursor(Qt::ClosedHandCursor);
    // The map follows the pointer: a drag to the right shows columns further left.
    const auto* rect = plot_->axisRect();
    const double keys = -moved.x() * (press_key_upper_ - press_key_lower_) / std::max(1, rect->width());
    const double queries = -moved.y() * (press_query_upper_ - press_query_lower_) / std::max(1, rect->height());
    setView(press_key_lower_ + keys, press_key_upper_ + keys, press_query_lower_ + queries, press_query_upper_ + queries);
    return true;
  }
  if (mouse->button() != Qt::LeftButton) return true;  // the other button of a chord
  const Drag was = drag_;
  drag_ = Drag::None;
  plot_->unsetCursor();
  rubber_band_->hide();
  if (!dragged_) {
    // Said once no second click follows: a double-click (the whole map) must not also choose a cell.
    clicked_cell_ = cellAt(press_position_);
    if (clicked_cell_.x() >= 0) click_timer_.start(QApplication::doubleClickInterval());
  } else if (was == Drag::Box) {
    auto cell = [this](const QPoint& pixel) {
      return QPoint(cell_at(plot_->xAxis->pixelToCoord(pixel.x()), matrix_.cols),
                    cell_at(plot_->yAxis->pixelToCoord(pixel.y()), matrix_.rows));
    };
    const QPoint from = cell(press_position_), to = cell(at);
    setVisibleCells(QRect(QPoint(std::min(from.x(), to.x()), std::min(from.y(), to.y())),
                          QPoint(std::max(from.x(), to.x()), std::max(from.y(), to.y()))));
  }
  return true;
}

}  // namespace aw
