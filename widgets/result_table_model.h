// widgets/result_table_model.h — an analysis result table (table/result_table.h) as a read-only Qt
// table model: the CSV's columns (JSON-only columns left out), numbers right-aligned and shortened
// on screen (the export keeps every digit), and the file writer the export buttons use.
#pragma once

#include "table/result_table.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace aw {

class ResultTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit ResultTableModel(QObject* parent = nullptr);

  void setTable(const ResultTable& table);
  const ResultTable& table() const { return table_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ResultTable table_;
  std::vector<int> shown_;  // the table's column of each view column
};

// The table's metadata as one line ("model=bet_sf, metric=perplexity"), "" when it has none.
QString metadata_line(const ResultTable& table);
// A table's column as Qt text (QString of ResultTable::text).
QString cell_string(const ResultTable& table, int row, int column);

// Writes `text` to `path` as UTF-8, replacing the file; false when it cannot be written whole.
bool write_text_file(const QString& path, const QString& text);

}  // namespace aw
