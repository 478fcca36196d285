// table/result_table.h — what every analysis hands back: metadata (key = typed value,
// the CSV's "# key=value, …" line), named typed columns and rows of typed cells. The CSV and JSON
// writers (csv_format.h, json_format.h), the window's tables and plots and attention-plot all read this
// one type, so a result's layout is declared once, where the analysis builds it. No LibTorch, no Qt.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace aw {

// One cell or metadata value: empty, a whole number, a real number, a word, or true/false.
using Cell = std::variant<std::monostate, int64_t, double, std::string, bool>;

enum class ColumnType { Integer, Number, Text, Flag };

struct Column {
  std::string name;
  ColumnType type = ColumnType::Number;
  int digits = 6;      // significant digits a Number is written with
  bool in_csv = true;  // false: written to JSON only (details the CSV layout predates)
};

// Cells from the values analyses hold (an int becomes an Integer, a const char* a Text).
inline Cell cell(int64_t value) { return value; }
inline Cell cell(int value) { return static_cast<int64_t>(value); }
inline Cell cell(long long value) { return static_cast<int64_t>(value); }
inline Cell cell(unsigned value) { return static_cast<int64_t>(value); }
inline Cell cell(size_t value) { return static_cast<int64_t>(value); }
inline Cell cell(float value) { return static_cast<double>(value); }
inline Cell cell(double value) { return value; }
inline Cell cell(const std::string& value) { return value; }
inline Cell cell(const char* value) { return std::string(value); }
inline Cell cell(bool value) { return value; }
inline Cell cell(const Cell& value) { return value; }

// A cell as CSV text (without quoting): numbers with `digits` significant digits ("%.6g"; NaN is
// "nan"), flags "true"/"false", empty cells "".
std::string cell_text(const Cell& value, int digits = 6);

class ResultTable {
 public:
  ResultTable() = default;
  // A table with these columns ({"layer", ColumnType::Integer}, {"loss", ColumnType::Number, 8}, …).
  explicit ResultTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // ---- metadata: "# model=bet_sf, metric=perplexity, baseline=43.3" -------------------------
  // Adds (or replaces, keeping its place) `key`; numbers are written with `digits` digits.
  template <typename Value>
  ResultTable& meta(const std::string& key, const Value& value, int digits = 6) {
    return set_meta(key, cell(value), digits);
  }
  ResultTable& set_meta(const std::string& key, Cell value, int digits = 6);
  bool has_meta(const std::string& key) const;
  // The value's text ("" when absent).
  std::string meta_text(const std::string& key) const;
  // The value as a number (NaN when absent or not a number).
  double meta_number(const std::string& key) const;
  struct Entry {
    std::string key;
    Cell value;
    int digits = 6;
  };
  const std::vector<Entry>& metadata() const { return metadata_; }

  // ---- columns and rows ------------------------------------------------------------------------
  ResultTable& add_column(std::string name, ColumnType type, int digits = 6);
  ResultTable& add_json_column(std::string name, ColumnType type);  // in JSON only
  const std::vector<Column>& columns() const { return columns_; }
  // Index of a column, or -1.
  int column(const std::string& name) const;

  // A row of cells, one per column, in column order (short rows are padded with empty cells).
  void add_row(std::vector<Cell> row);
  template <typename... Values>
  void row(const Values&... values) {
    add_row(std::vector<Cell>{cell(values)...});
  }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  int64_t row_count() const { return static_cast<int64_t>(rows_.size()); }
  const Cell& at(int64_t row, int column) const;
  // The cell as a number (NaN when empty, text that is no number, or out of range) or as text.
  double number(int64_t row, int column) const;
  std::string text(int64_t row, int column) const;


 private:
  std::vector<Entry> metadata_;
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// `more` after the cells of `row`: a row assembled from parts (a block's cells, then the values).
inline void append_cells(std::vector<Cell>& row, const std::vector<Cell>& more) {
  row.insert(row.end(), more.begin(), more.end());
}

// A report's tables by output name ("csv" is the main one; "summary", "density", … the others).
using ResultTables = std::map<std::string, ResultTable>;

}  // namespace aw
