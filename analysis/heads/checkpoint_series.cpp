// analysis/heads/checkpoint_series.cpp — see checkpoint_series.h.
#include "analysis/heads/checkpoint_series.h"

#include "models/errors.h"
#include "models/training/training_history.h"

#include <algorithm>
#include <filesystem>

namespace aw {
namespace fs = std::filesystem;

std::vector<SeriesCheckpoint> checkpoint_series(const std::string& run_dir) {
  std::vector<SeriesCheckpoint> series;
  std::error_code error;
  for (fs::directory_iterator entry(run_dir, error), end; !error && entry != end; entry.increment(error)) {
    const auto name = entry->path().filename().string();
    if (!entry->is_directory() || name.rfind("epoch-", 0) != 0) continue;
    const auto number = name.substr(6);
    if (number.empty() || number.size() > 9 || !std::all_of(number.begin(), number.end(), ::isdigit)) continue;
    SeriesCheckpoint checkpoint;
    checkpoint.dir = entry->path().string();
    checkpoint.epoch = std::stoll(number);
    series.push_back(checkpoint);
  }
  if (error) fail_in_file(run_dir, "cannot be listed: " + error.message());
  if (series.empty())
    fail_in_file(run_dir, "has no epoch-N checkpoint folders (train with --keep-epochs to keep one per epoch)");
  std::sort(series.begin(), series.end(),
            [](const SeriesCheckpoint& a, const SeriesCheckpoint& b) { return a.epoch < b.epoch; });
  for (auto& checkpoint : series) {
    const auto history = read_training_history(checkpoint.dir);
    if (history.epochs.empty() || history.epochs.back().epoch != checkpoint.epoch)
      fail_in_file(checkpoint.dir + "/training.json",
                   "its history does not end at epoch " + std::to_string(checkpoint.epoch) + " as the folder's name says");
    checkpoint.step = history.epochs.back().step;
  }
  return series;
}

ResultTable series_table(ResultTable joined, const std::vector<SeriesCheckpoint>& checkpoints,
                         const std::vector<ResultTable>& tables) {
  if (tables.empty()) return joined;
  joined.add_column("epoch", ColumnType::Integer).add_column("step", ColumnType::Integer);
  for (const auto& column : tables.front().columns())
    if (column.in_csv) joined.add_column(column.name, column.type, column.digits);
    else joined.add_json_column(column.name, column.type);
  for (size_t i = 0; i < tables.size() && i < checkpoints.size(); ++i)
    for (const auto& row : tables[i].rows()) {
      std::vector<Cell> cells{checkpoints[i].epoch, checkpoints[i].step};
      append_cells(cells, row);
      joined.add_row(std::move(cells));
    }
  return joined;
}

}  // namespace aw
