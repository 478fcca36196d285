// table/json_format.cpp — see json_format.h.
#include "table/json_format.h"

#include <cmath>

namespace aw {
namespace {

nlohmann::ordered_json cell_json(const Cell& value) {
  struct Writer {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(int64_t number) const { return number; }
    nlohmann::ordered_json operator()(double number) const {
      return std::isfinite(number) ? nlohmann::ordered_json(number) : nlohmann::ordered_json(nullptr);
    }
    nlohmann::ordered_json operator()(const std::string& text) const { return text; }
    nlohmann::ordered_json operator()(bool flag) const { return flag; }
  };
  return std::visit(Writer{}, value);
}

}  // namespace

nlohmann::ordered_json table_json(const ResultTable& table) {
  auto json = nlohmann::ordered_json::object();
  for (const auto& entry : table.metadata()) json[entry.key] = cell_json(entry.value);
  if (table.columns().empty()) return json;
  auto names = nlohmann::ordered_json::array();
  for (const auto& column : table.columns()) names.push_back(column.name);
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : table.rows()) {
    auto object = nlohmann::ordered_json::object();
    for (size_t c = 0; c < table.columns().size(); ++c) object[table.columns()[c].name] = cell_json(row[c]);
    rows.push_back(std::move(object));
  }
  json["columns"] = std::move(names);
  json["rows"] = std::move(rows);
  return json;
}

nlohmann::ordered_json tables_json(const ResultTables& tables, const std::string& main) {
  const auto found = tables.find(main);
  auto json = found != tables.end() ? table_json(found->second) : nlohmann::ordered_json::object();
  for (const auto& [name, table] : tables) {
    if (name == main) continue;
    json["parts"][name] = table_json(table);
  }
  return json;
}

}  // namespace aw
