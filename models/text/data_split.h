// models/text/data_split.h — a reproducible train/valid/test split of a labelled file: the non-empty lines
// shuffled by a Fisher–Yates pass driven by std::mt19937_64(seed) (fully specified by the C++
// standard, so the same seed gives the same split on every platform), then cut in order into
// round(n · train %) training lines, round(n · valid %) validation lines and the rest for test.
// Translation pairs split by source instead: the distinct first columns are shuffled and cut the
// same way, so every translation of a sentence lands in the part its source went to.
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

// For `source<TAB>translation` lines: the distinct sources are shuffled and cut as above (n = the
// number of distinct sources); each part holds the lines of its sources in file order. Throws
// aw::Error as split_labelled_lines, and naming file and line for a line without a TAB or with an
// empty source.
LabelledSplit split_lines_grouped_by_source(const std::string& path, uint64_t seed, double train_percent,
                                            double valid_percent);

// Writes <dir>/train.tsv, valid.tsv and test.tsv (creating dir).
void write_labelled_split(const LabelledSplit& split, const std::string& dir);

}  // namespace aw
