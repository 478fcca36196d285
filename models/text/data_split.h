// models/text/data_split.h — a reproducible train/valid/test split of a labelled file: the non-empty lines
// shuffled by a Fisher–Yates pass driven by std::mt19937_64(seed) (fully specified by the C++
// standard, so the same seed gives the same split on every platform), then cut in order into
// round(n · train %) training lines, round(n · valid %) validation lines and the rest for test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// The split `attention-cli split` makes by default and the GUI's LAMA tab reads: 80 / 10 / 10.
constexpr double kDefaultTrainPercent = 80;
constexpr double kDefaultValidPercent = 10;

struct LabelledSplit {
  std::vector<std::string> train, valid, test;  // whole lines, without the line break
};

// Throws aw::Error naming the file when it cannot be read or has no lines, and for percentages that
// are negative or sum to more than 100.
LabelledSplit split_labelled_lines(const std::string& path, uint64_t seed, double train_percent, double valid_percent);

// Writes <dir>/train.tsv, valid.tsv and test.tsv (creating dir).
void write_labelled_split(const LabelledSplit& split, const std::string& dir);

}  // namespace aw
