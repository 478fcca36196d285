// widgets/heatmap_region.h — the arithmetic behind a zoomable heatmap, kept apart from the widget so it
// reads (and is tested) on its own: an axis range in cell units clamped to the matrix, zoomed around a
// point, the cells it shows, which of them get a tick label, a token search, and a region of the matrix
// as tab-separated text. Cell i is centred on coordinate i, so an axis of n cells spans [−0.5, n − 0.5].
#pragma once

#include "widgets/attention_matrix.h"

#include <QList>
#include <QPoint>
#include <QRect>
#include <QString>

namespace aw {

// One axis' visible span in cell coordinates.
struct CellRange {
  double lower = -0.5, upper = 0.5;
  double size() const { return upper - lower; }
  double centre() const { return (lower + upper) / 2; }
};

// The whole axis of `cells` cells.
CellRange whole_range(int cells);
// `wanted` kept at least min(min_span, cells) and at most `cells` wide, then moved (not shrunk) to lie
// inside the axis: zoom never leaves the matrix and never shows less than `min_span` cells.
CellRange clamped_range(CellRange wanted, int cells, double min_span);
// `range` scaled by `factor` (< 1 zooms in) so that coordinate `around` stays where it is.
CellRange zoomed_range(CellRange range, double factor, double around);
// The first cell and the count of cells at least partly inside `range` (slivers under a thousandth of
// a cell, which are rounding, do not count).
std::pair<int, int> visible_span(CellRange range, int cells);
// The cell under coordinate `coordinate`, clamped to [0, cells − 1].
int cell_at(double coordinate, int cells);

// Which of the cells first … first + count − 1 carry a label when the axis is `pixels` long and a label
// line `line` pixels high: every k-th, no more than `max_labels`, no two closer than one line; the
// labelled cells are multiples of k, so panning does not make labels jump from cell to cell.
QList<int> labelled_cells(int first, int count, int pixels, int line, int max_labels);

// The next token after `after` (wrapping past the end to 0) whose key label (x) or query label (y)
// contains `text`, case-insensitive: x and y are that index where the label matches, else −1; (−1, −1)
// when no label matches.
QPoint next_token_match(const AttentionMatrix& matrix, const QString& text, int after);

// The cells of `region` (x = key, y = query) as tab-separated values: a header of the key tokens after
// an empty corner, then one line per query token, its label first, its weights to 6 significant
// digits (what a spreadsheet shows of a float). Tabs and line breaks inside a
// token are written as \t and \n so each row stays one line.
QString region_tsv(const AttentionMatrix& matrix, const QRect& region);

}  // namespace aw
