// widgets/csv_table.cpp — see csv_table.h.
#include "widgets/csv_table.h"

#include <QFile>

#include <cmath>
#include <limits>

namespace aw {
namespace {

// Splits CSV text into records of fields; a comment line comes back as one field starting with '#'.
QList<QStringList> csv_records(const QString& text) {
  QList<QStringList> records;
  QStringList fields;
  QString field;
  bool quoted = false, at_record_start = true;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (at_record_start && c == '#') {  // a comment runs to the end of its line
      const int end = text.indexOf('\n', i);
      records << QStringList{text.mid(i, end < 0 ? -1 : end - i).trimmed()};
      i = end < 0 ? text.size() : end;
      continue;
    }
    at_record_start = false;
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields << field;
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      fields << field;
      records << fields;
      fields.clear();
      field.clear();
      at_record_start = true;
    } else {
      field += c;
    }
  }
  if (!at_record_start || !field.isEmpty()) records << (fields << field);
  return records;
}

bool is_comment(const QStringList& record) { return record.size() == 1 && record[0].startsWith('#'); }

}  // namespace

double CsvTable::number(int row, int column) const {
  if (row < 0 || row >= rows.size() || column < 0 || column >= rows[row].size()) return std::numeric_limits<double>::quiet_NaN();
  bool ok = false;
  const double value = rows[row][column].toDouble(&ok);
  return ok ? value : std::numeric_limits<double>::quiet_NaN();
}

QString CsvTable::commentValue(const QString& key) const {
  for (const auto& comment : comments)
    for (const auto& part : comment.split(',')) {
      const auto pair = part.trimmed();
      if (pair.startsWith(key + "=")) return pair.mid(key.size() + 1);
    }
  return {};
}

CsvTable parse_csv(const QString& text) {
  CsvTable table;
  bool header_expected = true;
  for (const auto& record : csv_records(text)) {
    if (is_comment(record)) {
      table.comments << record[0].mid(1).trimmed();
      header_expected = true;  // a new block repeats the header
      continue;
    }
    if (record.size() == 1 && record[0].isEmpty()) continue;  // blank line
    if (header_expected) {
      if (table.header.isEmpty()) table.header = record;
      header_expected = false;
      continue;
    }
    table.rows << record;
  }
  return table;
}

bool write_csv_file(const QString& path, const QString& csv) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const auto bytes = csv.toUtf8();
  return file.write(bytes) == bytes.size();
}

CsvTableModel::CsvTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CsvTableModel::setTable(const CsvTable& table) {
  beginResetModel();
  table_ = table;
  endResetModel();
}

int CsvTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : table_.rows.size(); }
int CsvTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : table_.header.size(); }

QVariant CsvTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= table_.rows.size()) return {};
  const auto& row = table_.rows[index.row()];
  const auto text = row.value(index.column());
  if (role == Qt::DisplayRole) {
    bool numeric = false;
    const double value = text.toDouble(&numeric);
    // Long decimals are shortened on screen; the CSV export keeps every digit.
    if (numeric && text.contains('.')) return QString::number(value, 'g', 6);
    return text;
  }
  if (role == Qt::TextAlignmentRole) {
    bool numeric = false;
    text.toDouble(&numeric);
    return QVariant::fromValue(Qt::Alignment(numeric ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
  }
  if (role == Qt::ToolTipRole) return text;
  return {};
}

QVariant CsvTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Horizontal) return table_.header.value(section);
  return section + 1;
}

}  // namespace aw
