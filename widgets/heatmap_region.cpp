// widgets/heatmap_region.cpp — see heatmap_region.h.
#include "widgets/heatmap_region.h"

#include <algorithm>
#include <cmath>

namespace aw {
namespace {

constexpr double kSliver = 1e-3;  // of a cell: less than this on screen is rounding, not a visible cell

QString tsv_field(QString text) {
  return text.replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r");
}

}  // namespace

CellRange whole_range(int cells) { return {-0.5, cells - 0.5}; }

CellRange clamped_range(CellRange wanted, int cells, double min_span) {
  if (cells <= 0) return whole_range(0);
  const double whole = cells;
  const double span = std::clamp(wanted.size(), std::min(min_span, whole), whole);
  const double lower = std::clamp(wanted.centre() - span / 2, -0.5, cells - 0.5 - span);
  return {lower, lower + span};
}

CellRange zoomed_range(CellRange range, double factor, double around) {
  return {around - (around - range.lower) * factor, around + (range.upper - around) * factor};
}

std::pair<int, int> visible_span(CellRange range, int cells) {
  if (cells <= 0) return {0, 0};
  // Cell i covers [i − 0.5, i + 0.5].
  const int first = std::clamp(static_cast<int>(std::floor(range.lower + 0.5 + kSliver)), 0, cells - 1);
  const int last = std::clamp(static_cast<int>(std::ceil(range.upper - 0.5 - kSliver)), first, cells - 1);
  return {first, last - first + 1};
}

int cell_at(double coordinate, int cells) {
  return std::clamp(static_cast<int>(std::floor(coordinate + 0.5)), 0, std::max(0, cells - 1));
}

QList<int> labelled_cells(int first, int count, int pixels, int line, int max_labels) {
  QList<int> labelled;
  if (count <= 0) return labelled;
  int step = std::max(1, (count + max_labels - 1) / max_labels);
  if (pixels > 0) step = std::max(step, (count * line + pixels - 1) / pixels);
  for (int cell = (first + step - 1) / step * step; cell < first + count; cell += step) labelled << cell;
  return labelled;
}

QPoint next_token_match(const AttentionMatrix& matrix, const QString& text, int after) {
  const int tokens = std::max(matrix.rows, matrix.cols);
  if (text.isEmpty() || tokens == 0) return {-1, -1};
  for (int step = 1; step <= tokens; ++step) {
    const int index = ((after + step) % tokens + tokens) % tokens;
    const bool key = index < matrix.cols && matrix.col_labels.value(index).contains(text, Qt::CaseInsensitive);
    const bool query = index < matrix.rows && matrix.row_labels.value(index).contains(text, Qt::CaseInsensitive);
    if (key || query) return {key ? index : -1, query ? index : -1};
  }
  return {-1, -1};
}

QString region_tsv(const AttentionMatrix& matrix, const QRect& region) {
  const QRect cells = region.intersected(QRect(0, 0, matrix.cols, matrix.rows));
  if (cells.isEmpty()) return {};
  QStringList lines;
  QStringList header{QString()};
  for (int col = cells.left(); col <= cells.right(); ++col) header << tsv_field(matrix.col_labels.value(col));
  lines << header.join('\t');
  for (int row = cells.top(); row <= cells.bottom(); ++row) {
    QStringList fields{tsv_field(matrix.row_labels.value(row))};
    for (int col = cells.left(); col <= cells.right(); ++col) fields << QString::number(matrix.at(row, col), 'g', 6);
    lines << fields.join('\t');
  }
  return lines.join('\n') + '\n';
}

}  // namespace aw
