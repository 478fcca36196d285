// models/text/data_split.cpp — see data_split.h.
#include "models/text/data_split.h"

#include "models/errors.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <unordered_map>

namespace aw {
namespace fs = std::filesystem;
namespace {

void require_percents(double train_percent, double valid_percent) {
  if (train_percent < 0 || valid_percent < 0 || train_percent + valid_percent > 100)
    throw Error("split percentages must be ≥ 0 and sum to at most 100, got " + std::to_string(train_percent) + " and " +
                std::to_string(valid_percent));
}

struct NumberedLine {
  size_t number;  // 1-based line number in the file
  std::string text;
};

// The non-empty lines of `path` (a trailing '\r' dropped); throws when it cannot be read or has none.
std::vector<NumberedLine> read_nonempty_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<NumberedLine> lines;
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    require_line_length(path, number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back({number, std::move(line)});
  }
  if (lines.empty()) fail_in_file(path, "holds no lines to split");
  return lines;
}

// Fisher–Yates, back to front, with std::mt19937_64(seed).
template <typename Item>
void seeded_shuffle(std::vector<Item>& items, uint64_t seed) {
  std::mt19937_64 engine(seed);
  for (size_t i = items.size() - 1; i > 0; --i) std::swap(items[i], items[engine() % (i + 1)]);
}

// How many of n shuffled items go to train and to valid (the rest are test).
struct PartSizes {
  size_t train, valid;
};

PartSizes part_sizes(size_t count, double train_percent, double valid_percent) {
  const auto n = static_cast<double>(count);
  const auto train = static_cast<size_t>(std::llround(n * train_percent / 100.0));
  const auto valid = std::min(count - train, static_cast<size_t>(std::llround(n * valid_percent / 100.0)));
  return {train, valid};
}

}  // namespace

LabelledSplit split_labelled_lines(const std::string& path, uint64_t seed, double train_percent, double valid_percent) {
  require_percents(train_percent, valid_percent);
  std::vector<std::string> lines;
  for (auto& line : read_nonempty_lines(path)) lines.push_back(std::move(line.text));
  seeded_shuffle(lines, seed);

  const auto sizes = part_sizes(lines.size(), train_percent, valid_percent);
  LabelledSplit split;
  split.train.assign(lines.begin(), lines.begin() + sizes.train);
  split.valid.assign(lines.begin() + sizes.train, lines.begin() + sizes.train + sizes.valid);
  split.test.assign(lines.begin() + sizes.train + sizes.valid, lines.end());
  return split;
}

LabelledSplit split_lines_grouped_by_source(const std::string& path, uint64_t seed, double train_percent,
                                            double valid_percent) {
  require_percents(train_percent, valid_percent);
  const auto lines = read_nonempty_lines(path);

  // Sources numbered in order of first appearance; source_of_line[i] is the number of line i's source.
  std::unordered_map<std::string, size_t> number_of_source;
  std::vector<size_t> source_of_line;
  source_of_line.reserve(lines.size());
  for (const auto& line : lines) {
    const size_t tab = line.text.find('\t');
    const std::string where = "line " + std::to_string(line.number) + ": ";
    if (tab == std::string::npos) fail_in_file(path, where + "no TAB between source and translation");
    if (tab == 0) fail_in_file(path, where + "empty source before the TAB");
    source_of_line.push_back(number_of_source.emplace(line.text.substr(0, tab), number_of_source.size()).first->second);
  }

  std::vector<size_t> shuffled(number_of_source.size());
  for (size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = i;
  seeded_shuffle(shuffled, seed);
  const auto sizes = part_sizes(shuffled.size(), train_percent, valid_percent);
  std::vector<int> part_of_source(shuffled.size());  // 0 train, 1 valid, 2 test
  for (size_t rank = 0; rank < shuffled.size(); ++rank)
    part_of_source[shuffled[rank]] = rank < sizes.train ? 0 : rank < sizes.train + sizes.valid ? 1 : 2;

  LabelledSplit split;
  std::vector<std::string>* parts[] = {&split.train, &split.valid, &split.test};
  for (size_t i = 0; i < lines.size(); ++i) parts[part_of_source[source_of_line[i]]]->push_back(lines[i].text);
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
