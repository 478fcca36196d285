// widgets/top_heads_table.h — the heads that score highest on each per-head score of a result table
// (head types): one row per score column, its best heads as "2.3  0.81" cells, so the heads of each
// type can be read off without sorting the table once per score. Entropy lists the lowest first (a
// focused head), every other score the highest. Clicking a head cell emits it.
#pragma once

#include "table/result_table.h"

#include <QTableWidget>

#include <string>

namespace aw {

class TopHeadsTable : public QTableWidget {
  Q_OBJECT

 public:
  explicit TopHeadsTable(int heads_per_score = 3, QWidget* parent = nullptr);
  // The table's score columns: the columns after `head` in the CSV that hold numbers (a table read
  // back from a CSV has text columns).
  void setResult(const ResultTable& table);
  void clearResult();

 Q_SIGNALS:
  void headClicked(int layer, int head, const QString& score);

 private:
  int heads_per_score_;
};

}  // namespace aw
