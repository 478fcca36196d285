// table/csv_format.cpp — see csv_format.h.
#include "table/csv_format.h"

#include <cctype>

namespace aw {
namespace {

// One line of a result CSV: its fields with quotes resolved, or a comment (one field, '#' included).
// A comment is known by where its '#' stands, not by its text: a quoted "#love" is a field.
struct CsvRecord {
  std::vector<std::string> fields;
  bool comment = false;
};

// The records of `text`; a line starting with '#' is a comment record.
std::vector<CsvRecord> csv_records(const std::string& text) {
  std::vector<CsvRecord> records;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, at_record_start = true, field_started = false;
  const auto end_record = [&] {
    if (field_started || !fields.empty()) {
      fields.push_back(field);
      records.push_back({fields, false});
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
      records.push_back({{comment}, true});
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

namespace {

// The first field of a header or row line, quoted where it would otherwise read as something else: a
// line starting with '#' reads as a comment, an empty line (one column, an empty field) as no line.
std::string line_start(const std::string& field, size_t fields_in_line) {
  const bool empty_line = field.empty() && fields_in_line == 1;
  if (empty_line || (!field.empty() && field[0] == '#')) return "\"" + field + "\"";
  return field;
}

}  // namespace

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
    csv += first ? line_start(csv_field(column.name), written_columns) : "," + csv_field(column.name);
    first = false;
  }
  csv += "\n";
  for (const auto& row : table.rows()) {
    std::string line;
    first = true;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!columns[c].in_csv) continue;
      const auto text = cell_text(row[c], columns[c].digits);
      const auto field = std::holds_alternative<std::string>(row[c]) ? csv_field(text) : text;
      line += first ? line_start(field, written_columns) : "," + field;
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
    if (record.comment) {
      read_metadata(record.fields[0], table);
      header_expected = true;  // a new block repeats the header
      continue;
    }
    if (header_expected) {
      if (!header_seen)
        for (const auto& name : record.fields) table.add_column(name, ColumnType::Text);
      header_seen = true;
      header_expected = false;
      continue;
    }
    std::vector<Cell> row;
    for (const auto& field : record.fields) row.emplace_back(field);
    table.add_row(std::move(row));
  }
  return table;
}

}  // namespace aw
