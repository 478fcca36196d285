// table/csv_format.cpp — see csv_format.h.
#include "table/csv_format.h"

#include <cctype>

namespace aw {
namespace {

// The CSV records of `text`: fields with quotes resolved; a line starting with '#' is one record of
// one field (the comment, '#' included).
std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, at_record_start = true, field_started = false;
  const auto end_record = [&] {
    if (field_started || !fields.empty()) {
      fields.push_back(field);
      records.push_back(fields);
    }
    fields.clear();
    field.clear();
    field_started = false;
    at_record_start = true;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
      continue;
    }
    if (at_record_start && c == '#') {  // a comment runs to the end of its line
      const auto end = text.find('\n', i);
      auto comment = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
      while (!comment.empty() && (comment.back() == '\r' || comment.back() == ' ')) comment.pop_back();
      records.push_back({comment});
      i = end == std::string::npos ? text.size() : end;
      continue;
    }
    at_record_start = false;
    if (c != '\n' && c != '\r') field_started = true;  // a line with nothing on it is no record
    if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
    } else {
      field += c;
    }
  }
  end_record();
  return records;
}

bool is_comment(const std::vector<std::string>& record) {
  return record.size() == 1 && !record[0].empty() && record[0][0] == '#';
}

// "key=" at the start of `part`, with a key of letters, digits and '_'.
size_t key_length(const std::string& part) {
  size_t i = 0;
  while (i < part.size() && (std::isalnum(static_cast<unsigned char>(part[i])) || part[i] == '_')) ++i;
  return i > 0 && i < part.size() && part[i] == '=' ? i : 0;
}

void read_metadata(const std::string& comment, ResultTable& table) {
  std::string body = comment.substr(1);
  while (!body.empty() && body.front() == ' ') body.erase(body.begin());
  std::string key, value;
  const auto flush = [&] {
    if (!key.empty()) table.set_meta(key, value);
  };
  size_t start = 0;
  while (start <= body.size()) {
    const auto comma = body.find(", ", start);
    const auto part = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (const auto length = key_length(part)) {
      flush();
      key = part.substr(0, length);
      value = part.substr(length + 1);
    } else if (!key.empty()) {
      value += ", " + part;
    } else if (!part.empty()) {
      key = "comment", value = part;
    }
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  flush();
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string write_csv(const ResultTable& table) {
  std::string csv;
  if (!table.metadata().empty()) {
    csv += "# ";
    bool first = true;
    for (const auto& entry : table.metadata()) {
      csv += (first ? "" : ", ") + entry.key + "=" + cell_text(entry.value, entry.digits);
      first = false;
    }
    csv += "\n";
  }
  const auto& columns = table.columns();
  size_t written_columns = 0;
  for (const auto& column : columns) written_columns += column.in_csv ? 1 : 0;
  bool first = true;
  for (const auto& column : columns) {
    if (!column.in_csv) continue;
    csv += (first ? "" : ",") + csv_field(column.name);
    first = false;
  }
  csv += "\n";
  for (const auto& row : table.rows()) {
    std::string line;
    first = true;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!columns[c].in_csv) continue;
      const auto text = cell_text(row[c], columns[c].digits);
      auto field = std::holds_alternative<std::string>(row[c]) ? csv_field(text) : text;
      // A line that starts with '#' would read as a comment, an empty line as no row: quoted, neither.
      const bool empty_line = field.empty() && written_columns == 1;
      if (first && (empty_line || (!field.empty() && field[0] == '#')) && std::holds_alternative<std::string>(row[c]))
        field = "\"" + field + "\"";
      line += (first ? "" : ",") + field;
      first = false;
    }
    csv += line + "\n";
  }
  return csv;
}

ResultTable read_csv(const std::string& text) {
  ResultTable table;
  bool header_expected = true, header_seen = false;
  for (const auto& record : csv_records(text)) {
    if (is_comment(record)) {
      read_metadata(record[0], table);
      header_expected = true;  // a new block repeats the header
      continue;
    }
    if (header_expected) {
      if (!header_seen)
        for (const auto& name : record) table.add_column(name, ColumnType::Text);
      header_seen = true;
      header_expected = false;
      continue;
    }
    std::vector<Cell> row;
    for (const auto& field : record) row.emplace_back(field);
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
