// table/result_table.cpp — see result_table.h.
#include "table/result_table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace aw {
namespace {

const Cell kEmpty{};

double parse_double(const std::string& text) {
  if (text.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() ? value : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::string cell_text(const Cell& value, int digits) {
  struct Writer {
    int digits;
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(int64_t number) const { return std::to_string(number); }
    std::string operator()(double number) const {
      if (std::isnan(number)) return "nan";
      char text[48];
      std::snprintf(text, sizeof text, "%.*g", digits, number);
      return text;
    }
    std::string operator()(const std::string& text) const { return text; }
    std::string operator()(bool flag) const { return flag ? "true" : "false"; }
  };
  return std::visit(Writer{digits}, value);
}

ResultTable& ResultTable::set_meta(const std::string& key, Cell value, int digits) {
  for (auto& entry : metadata_)
    if (entry.key == key) {
      entry.value = std::move(value);
      entry.digits = digits;
      return *this;
    }
  metadata_.push_back({key, std::move(value), digits});
  return *this;
}

bool ResultTable::has_meta(const std::string& key) const {
  for (const auto& entry : metadata_)
    if (entry.key == key) return true;
  return false;
}

std::string ResultTable::meta_text(const std::string& key) const {
  for (const auto& entry : metadata_)
    if (entry.key == key) return cell_text(entry.value, entry.digits);
  return {};
}

double ResultTable::meta_number(const std::string& key) const {
  for (const auto& entry : metadata_) {
    if (entry.key != key) continue;
    if (const auto* number = std::get_if<double>(&entry.value)) return *number;
    if (const auto* number = std::get_if<int64_t>(&entry.value)) return static_cast<double>(*number);
    if (const auto* text = std::get_if<std::string>(&entry.value)) return parse_double(*text);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

ResultTable& ResultTable::add_column(std::string name, ColumnType type, int digits) {
  columns_.push_back({std::move(name), type, digits, true});
  for (auto& row : rows_) row.resize(columns_.size());
  return *this;
}

ResultTable& ResultTable::add_json_column(std::string name, ColumnType type) {
  columns_.push_back({std::move(name), type, 6, false});
  for (auto& row : rows_) row.resize(columns_.size());
  return *this;
}

int ResultTable::column(const std::string& name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i].name == name) return static_cast<int>(i);
  return -1;
}

void ResultTable::add_row(std::vector<Cell> row) {
  row.resize(columns_.size());
  rows_.push_back(std::move(row));
}

const Cell& ResultTable::at(int64_t row, int column) const {
  if (row < 0 || row >= row_count() || column < 0 || column >= static_cast<int>(columns_.size())) return kEmpty;
  return rows_[static_cast<size_t>(row)][static_cast<size_t>(column)];
}

double ResultTable::number(int64_t row, int column) const {
  const auto& value = at(row, column);
  if (const auto* number = std::get_if<double>(&value)) return *number;
  if (const auto* number = std::get_if<int64_t>(&value)) return static_cast<double>(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? 1.0 : 0.0;
  if (const auto* text = std::get_if<std::string>(&value)) return parse_double(*text);
  return std::numeric_limits<double>::quiet_NaN();
}

std::string ResultTable::text(int64_t row, int column) const {
  const int digits = column >= 0 && column < static_cast<int>(columns_.size()) ? columns_[column].digits : 6;
  return cell_text(at(row, column), digits);
}

}  // namespace aw
