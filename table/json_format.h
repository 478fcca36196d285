// table/json_format.h — a ResultTable as JSON (attention-cli --json), in the table's own order: its
// metadata as keys of the object, typed (numbers stay numbers; NaN becomes null), then "columns" (the
// names, in order) and "rows" (one object per row, column name → value) when the table has columns.
#pragma once

#include "table/result_table.h"

#include <nlohmann/json.hpp>

#include <string>

namespace aw {

nlohmann::ordered_json table_json(const ResultTable& table);
// The report's tables: the `main` one's JSON, with the others under "parts" by name.
nlohmann::ordered_json tables_json(const ResultTables& tables, const std::string& main);

}  // namespace aw
