// models/text/data_split.cpp — see data_split.h.
#include "models/text/data_split.h"

#include "models/errors.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

namespace aw {
namespace fs = std::filesystem;

LabelledSplit split_labelled_lines(const std::string& path, uint64_t seed, double train_percent, double valid_percent) {
  if (train_percent < 0 || valid_percent < 0 || train_percent + valid_percent > 100)
    throw Error("split percentages must be ≥ 0 and sum to at most 100, got " + std::to_string(train_percent) + " and " +
                std::to_string(valid_percent));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) fail_in_file(path, "holds no lines to split");

  std::mt19937_64 engine(seed);
  for (size_t i = lines.size() - 1; i > 0; --i) std::swap(lines[i], lines[engine() % (i + 1)]);

  const auto n = static_cast<double>(lines.size());
  const auto train_count = static_cast<size_t>(std::llround(n * train_percent / 100.0));
  const auto valid_count = std::min(lines.size() - train_count, static_cast<size_t>(std::llround(n * valid_percent / 100.0)));
  LabelledSplit split;
  split.train.assign(lines.begin(), lines.begin() + train_count);
  split.valid.assign(lines.begin() + train_count, lines.begin() + train_count + valid_count);
  split.test.assign(lines.begin() + train_count + valid_count, lines.end());
  return split;
}

void write_labelled_split(const LabelledSplit& split, const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) fail_in_file(dir, "cannot create folder: " + error.message());
  const std::pair<const char*, const std::vector<std::string>*> parts[] = {
      {"train.tsv", &split.train}, {"valid.tsv", &split.valid}, {"test.tsv", &split.test}};
  for (const auto& [name, lines] : parts) {
    const auto path = (fs::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary);
    for (const auto& line : *lines) out << line << '\n';
    if (!out) fail_in_file(path, "cannot be written");
  }
}

}  // namespace aw
