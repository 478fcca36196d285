// widgets/selection_copy.cpp — see selection_copy.h.
#include "widgets/selection_copy.h"

#include <QAbstractItemView>
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <QKeyEvent>

#include <algorithm>
#include <climits>

namespace aw {

QString selection_as_tsv(const QAbstractItemView& view) {
  const auto* selection = view.selectionModel();
  if (!selection || !selection->hasSelection()) return {};
  const auto indexes = selection->selectedIndexes();
  int top = INT_MAX, bottom = -1, left = INT_MAX, right = -1;
  for (const auto& index : indexes) {
    top = std::min(top, index.row());
    bottom = std::max(bottom, index.row());
    left = std::min(left, index.column());
    right = std::max(right, index.column());
  }
  // The rectangle first, then the selected cells into it: a few selected cells of a large table stay cheap.
  QVector<QStringList> cells(bottom - top + 1, QStringList(QVector<QString>(right - left + 1)));
  for (const auto& index : indexes) {
    // A cell's own tabs and line breaks would split it: spaces keep the table's shape.
    auto text = index.data(Qt::DisplayRole).toString();
    text.replace('\t', ' ').replace('\n', ' ');
    cells[index.row() - top][index.column() - left] = text;
  }
  QStringList lines;
  for (const auto& row : cells) lines << row.join('\t');
  return lines.join('\n') + '\n';
}

namespace {

// The view's own Ctrl+C copies its current cell only: this takes the key first and copies the selection.
class SelectionCopier : public QObject {
 public:
  explicit SelectionCopier(QAbstractItemView* view) : QObject(view), view_(view) {}

  void copy() const {
    const auto text = selection_as_tsv(*view_);
    if (!text.isEmpty()) QGuiApplication::clipboard()->setText(text);
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    const bool override = event->type() == QEvent::ShortcutOverride;
    if (override || event->type() == QEvent::KeyPress) {
      if (static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
        if (override) event->accept();  // the key comes to the view as a key press, not to a shortcut
        else copy();
        return !override;
      }
    }
    return QObject::eventFilter(watched, event);
  }

 private:
  QAbstractItemView* view_;
};

}  // namespace

void enable_selection_copy(QAbstractItemView* view) {
  view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* copier = new SelectionCopier(view);
  view->installEventFilter(copier);
  auto* copy = new QAction("Copy", view);
  copy->setShortcut(QKeySequence::Copy);  // shown in the menu; the key itself goes through the filter
  copy->setShortcutContext(Qt::WidgetShortcut);
  QObject::connect(copy, &QAction::triggered, copier, &SelectionCopier::copy);
  view->addAction(copy);
  view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace aw
