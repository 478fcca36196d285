// widgets/top_heads_table.cpp — see top_heads_table.h.
#include "widgets/top_heads_table.h"

#include <QHeaderView>

#include <algorithm>
#include <cmath>
#include <vector>

namespace aw {
namespace {

// Scores whose type is their low end: a head of low entropy is a focused one.
bool lowest_first(const std::string& score) { return score == "entropy"; }

constexpr int kLayerRole = Qt::UserRole, kHeadRole = Qt::UserRole + 1;

}  // namespace

TopHeadsTable::TopHeadsTable(int heads_per_score, QWidget* parent)
    : QTableWidget(parent), heads_per_score_(heads_per_score) {
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::SingleSelection);
  verticalHeader()->setVisible(true);
  horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  setToolTip("The best heads of each score, as layer.head and score; entropy: the lowest (most focused)");
  connect(this, &QTableWidget::cellClicked, this, [this](int row, int column) {
    const auto* cell = item(row, column);
    if (!cell || !cell->data(kLayerRole).isValid()) return;
    Q_EMIT headClicked(cell->data(kLayerRole).toInt(), cell->data(kHeadRole).toInt(), verticalHeaderItem(row)->text());
  });
  clearResult();
}

void TopHeadsTable::clearResult() {
  clear();
  setRowCount(0);
  setColumnCount(heads_per_score_);
  QStringList titles;
  for (int rank = 1; rank <= heads_per_score_; ++rank) titles << QString("#%1").arg(rank);
  setHorizontalHeaderLabels(titles);
}

void TopHeadsTable::setResult(const ResultTable& table) {
  clearResult();
  const int layer_col = table.column("layer"), head_col = table.column("head");
  if (layer_col < 0 || head_col < 0) return;
  const auto& columns = table.columns();
  for (size_t c = static_cast<size_t>(head_col) + 1; c < columns.size(); ++c) {
    // Numbers, or text read back from a CSV (a saved session): every column after head is a score.
    const bool scores = columns[c].type == ColumnType::Number || columns[c].type == ColumnType::Text;
    if (!scores || !columns[c].in_csv) continue;
    const auto& score = columns[c].name;
    std::vector<int> rows;
    for (int row = 0; row < table.row_count(); ++row)
      if (!std::isnan(table.number(row, static_cast<int>(c)))) rows.push_back(row);
    if (rows.empty()) continue;  // not a number anywhere: not a score
    const bool ascending = lowest_first(score);
    std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) {
      const double x = table.number(a, static_cast<int>(c)), y = table.number(b, static_cast<int>(c));
      return ascending ? x < y : x > y;
    });
    const int line = rowCount();
    insertRow(line);
    setVerticalHeaderItem(line, new QTableWidgetItem(QString::fromStdString(score)));
    for (int rank = 0; rank < heads_per_score_ && rank < static_cast<int>(rows.size()); ++rank) {
      const int row = rows[static_cast<size_t>(rank)];
      const int layer = static_cast<int>(table.number(row, layer_col)), head = static_cast<int>(table.number(row, head_col));
      auto* cell = new QTableWidgetItem(
          QString("%1.%2  %3").arg(layer).arg(head).arg(table.number(row, static_cast<int>(c)), 0, 'g', 3));
      cell->setData(kLayerRole, layer);
      cell->setData(kHeadRole, head);
      setItem(line, rank, cell);
    }
  }
}

}  // namespace aw
