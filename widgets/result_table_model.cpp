// widgets/result_table_model.cpp — see result_table_model.h.
#include "widgets/result_table_model.h"

#include <QFile>

namespace aw {

ResultTableModel::ResultTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResultTableModel::setTable(const ResultTable& table) {
  beginResetModel();
  table_ = table;
  shown_.clear();
  for (size_t c = 0; c < table_.columns().size(); ++c)
    if (table_.columns()[c].in_csv) shown_.push_back(static_cast<int>(c));
  endResetModel();
}

int ResultTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.row_count());
}

int ResultTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(shown_.size());
}

QVariant ResultTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= table_.row_count() || index.column() >= static_cast<int>(shown_.size()))
    return {};
  const int column = shown_[index.column()];
  const auto text = cell_string(table_, index.row(), column);
  bool numeric = false;
  const double value = text.toDouble(&numeric);
  if (role == Qt::DisplayRole) {
    // Long decimals are shortened on screen; the CSV export keeps every digit.
    if (numeric && text.contains('.')) return QString::number(value, 'g', 6);
    return text;
  }
  if (role == Qt::TextAlignmentRole)
    return QVariant::fromValue(Qt::Alignment(numeric ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
  if (role == Qt::ToolTipRole) return text;
  return {};
}

QVariant ResultTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  if (section < 0 || section >= static_cast<int>(shown_.size())) return {};
  return QString::fromStdString(table_.columns()[shown_[section]].name);
}

QString metadata_line(const ResultTable& table) {
  QStringList pairs;
  for (const auto& entry : table.metadata())
    pairs << QString::fromStdString(entry.key + "=" + cell_text(entry.value, entry.digits));
  return pairs.join(", ");
}

QString cell_string(const ResultTable& table, int row, int column) {
  return QString::fromStdString(table.text(row, column));
}

bool write_text_file(const QString& path, const QString& text) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const auto bytes = text.toUtf8();
  return file.write(bytes) == bytes.size();
}

}  // namespace aw
