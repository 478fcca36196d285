// widgets/selection_copy.h — Ctrl+C on a table copies every selected cell, not only the current one:
// the selection's bounding rectangle as tab-separated lines (cells outside the selection left empty),
// which a spreadsheet or a text editor pastes as a table.
#pragma once

#include <QString>

class QAbstractItemView;

namespace aw {

// The selected cells of `view` as tab-separated lines, rows in order; "" when nothing is selected.
QString selection_as_tsv(const QAbstractItemView& view);

// Gives `view` a Copy action (Ctrl+C, and its context menu) that puts selection_as_tsv on the clipboard.
void enable_selection_copy(QAbstractItemView* view);

}  // namespace aw
