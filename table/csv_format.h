// table/csv_format.h — a ResultTable as the CSV files attention-cli writes, and back:
//   # key=value, key=value          the metadata, when there is any
//   name,name,…                     the columns (JSON-only columns left out)
//   cell,cell,…                     one line per row; RFC 4180 quoting where a cell needs it
// Reading takes any such file (also older ones and several blocks one after another, each with its
// own comment and header, as series files were): every cell comes back as text, which
// ResultTable::number reads as a number where it is one.
#pragma once

#include "table/result_table.h"

#include <string>

namespace aw {

// One CSV field: quoted when it holds a comma, a quote or a line break, quotes doubled.
std::string csv_field(const std::string& text);

std::string write_csv(const ResultTable& table);

// Parses CSV text. The metadata is every "key=value" of the comment
// lines before a header (split at ", "; a part without '=' continues the value before it).
ResultTable read_csv(const std::string& text);

}  // namespace aw
