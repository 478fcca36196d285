// widgets/csv_table.h — an analysis result as the widgets take it: the CSV the CLI writes, parsed
// into comment lines, a header and rows of text, and a read-only Qt table model over it.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QString>
#include <QStringList>

namespace aw {

struct CsvTable {
  QStringList comments;  // "# …" lines before the header, without the "# "
  QStringList header;
  QList<QStringList> rows;

  // Index of a header column, or -1.
  int column(const QString& name) const { return header.indexOf(name); }
  // The cell as a number (NaN when it is not one or missing).
  double number(int row, int column) const;
  // `key=value` from the comment lines ("# model=bet_sf, metric=perplexity, baseline=115.2").
  QString commentValue(const QString& key) const;
};

// Parses RFC 4180 CSV (quoted fields with "" escapes and embedded commas/line breaks); lines that
// start with '#' before the header are comments. Several tables may follow each other when a new
// comment block starts (the CLI writes one per model): their rows are joined under the first header.
CsvTable parse_csv(const QString& text);

// Writes `csv` to `path` as UTF-8, replacing the file; false when it cannot be written whole.
bool write_csv_file(const QString& path, const QString& csv);

class CsvTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit CsvTableModel(QObject* parent = nullptr);

  void setTable(const CsvTable& table);
  const CsvTable& table() const { return table_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  CsvTable table_;
};

}  // namespace aw
