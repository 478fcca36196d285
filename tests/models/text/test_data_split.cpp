// tests/models/text/test_data_split.cpp — seeded splits (models/text/data_split.h): pairs grouped by source
// (no source in two parts, every line once in file order, sizes by distinct sources) and labelled lines
// split 80/10/10.
#include "models/errors.h"
#include "models/text/data_split.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::TempDir;
using test::write_file;

using Lines = std::vector<std::string>;

std::string source_of(const std::string& line) { return line.substr(0, line.find('\t')); }

std::set<std::string> sources_of(const Lines& lines) {
  std::set<std::string> sources;
  for (const auto& line : lines) sources.insert(source_of(line));
  return sources;
}

// The shuffle data_split.h specifies: Fisher–Yates from the back with std::mt19937_64(seed).
template <typename Item>
std::vector<Item> specified_shuffle(std::vector<Item> items, uint64_t seed) {
  std::mt19937_64 engine(seed);
  for (size_t i = items.size() - 1; i > 0; --i) std::swap(items[i], items[engine() % (i + 1)]);
  return items;
}

// 40 sources "source N" with 1, 2 or 3 translations each, written in rounds (first translations of
// all sources, then the second ones, …) so one source's lines are not next to each other; a blank
// line and a Windows line end among them.
class PairsFile : public ::testing::Test {
 protected:
  static constexpr size_t kSources = 40;

  void SetUp() override {
    std::string text;
    for (size_t round = 0; round < 3; ++round) {
      for (size_t source = 0; source < kSources; ++source)
        if (round < translations(source)) {
          const std::string line = "source " + std::to_string(source) + "\ttranslation " + std::to_string(round);
          lines_.push_back(line);
          text += line + (source == 5 ? "\r\n" : "\n");
        }
      text += "\n";
    }
    test::write_file(path(), text);
  }

  static size_t translations(size_t source) { return source % 3 + 1; }
  std::string path() const { return dir_.file("pairs.tsv"); }

  test::TempDir dir_;
  Lines lines_;  // the file's non-empty lines, in order
};

TEST_F(PairsFile, NoSourceIsInTwoParts) {
  const auto split = split_lines_grouped_by_source(path(), 1, 80, 10);
  const auto train = sources_of(split.train), valid = sources_of(split.valid), test = sources_of(split.test);
  for (const auto& source : valid) EXPECT_EQ(train.count(source), 0u) << source;
  for (const auto& source : test) {
    EXPECT_EQ(train.count(source), 0u) << source;
    EXPECT_EQ(valid.count(source), 0u) << source;
  }
}

TEST_F(PairsFile, EveryLineIsKeptOnceInFileOrder) {
  const auto split = split_lines_grouped_by_source(path(), 1, 80, 10);
  Lines all;
  for (const Lines* part : {&split.train, &split.valid, &split.test}) {
    // Within a part, lines keep the order they have in the file.
    std::vector<size_t> positions;
    for (const auto& line : *part)
      positions.push_back(static_cast<size_t>(std::find(lines_.begin(), lines_.end(), line) - lines_.begin()));
    EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
    all.insert(all.end(), part->begin(), part->end());
  }
  std::sort(all.begin(), all.end());
  Lines expected = lines_;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
}

TEST_F(PairsFile, SizesArePercentagesOfDistinctSources) {
  const auto split = split_lines_grouped_by_source(path(), 4, 80, 10);
  EXPECT_EQ(sources_of(split.train).size(), 32u);
  EXPECT_EQ(sources_of(split.valid).size(), 4u);
  EXPECT_EQ(sources_of(split.test).size(), 4u);
  // Every translation of a source goes with it.
  std::map<std::string, size_t> lines_per_source;
  for (const Lines* part : {&split.train, &split.valid, &split.test})
    for (const auto& line : *part) ++lines_per_source[source_of(line)];
  for (size_t source = 0; source < kSources; ++source)
    EXPECT_EQ(lines_per_source["source " + std::to_string(source)], translations(source));
}

TEST_F(PairsFile, SourcesAreRoundedAsLinesAre) {
  // 40 sources at 33 / 33: round(13.2) = 13 train, 13 valid, 14 test.
  const auto split = split_lines_grouped_by_source(path(), 2, 33, 33);
  EXPECT_EQ(sources_of(split.train).size(), 13u);
  EXPECT_EQ(sources_of(split.valid).size(), 13u);
  EXPECT_EQ(sources_of(split.test).size(), 14u);
  const auto all_train = split_lines_grouped_by_source(path(), 2, 100, 0);
  EXPECT_EQ(all_train.train.size(), lines_.size());
  EXPECT_TRUE(all_train.valid.empty() && all_train.test.empty());
}

TEST_F(PairsFile, SourcesFollowTheSpecifiedShuffle) {
  // Distinct sources in order of first appearance, shuffled; the first 32 are training.
  std::vector<std::string> sources;
  for (const auto& line : lines_)
    if (std::find(sources.begin(), sources.end(), source_of(line)) == sources.end()) sources.push_back(source_of(line));
  const auto shuffled = specified_shuffle(sources, 9);
  const auto split = split_lines_grouped_by_source(path(), 9, 80, 10);
  EXPECT_EQ(sources_of(split.train), std::set<std::string>(shuffled.begin(), shuffled.begin() + 32));
  EXPECT_EQ(sources_of(split.valid), std::set<std::string>(shuffled.begin() + 32, shuffled.begin() + 36));
}

TEST_F(PairsFile, SameSeedSameSplitOtherSeedOtherSplit) {
  const auto first = split_lines_grouped_by_source(path(), 11, 80, 10);
  const auto again = split_lines_grouped_by_source(path(), 11, 80, 10);
  const auto other = split_lines_grouped_by_source(path(), 12, 80, 10);
  EXPECT_EQ(first.train, again.train);
  EXPECT_EQ(first.valid, again.valid);
  EXPECT_EQ(first.test, again.test);
  EXPECT_NE(sources_of(first.train), sources_of(other.train));
}

TEST_F(PairsFile, SplitByLineIsTheSpecifiedShuffle) {
  const auto shuffled = specified_shuffle(lines_, 3);
  const auto split = split_labelled_lines(path(), 3, 80, 10);
  const auto train = static_cast<size_t>(std::llround(lines_.size() * 0.8));
  const auto valid = static_cast<size_t>(std::llround(lines_.size() * 0.1));
  EXPECT_EQ(split.train, Lines(shuffled.begin(), shuffled.begin() + train));
  EXPECT_EQ(split.valid, Lines(shuffled.begin() + train, shuffled.begin() + train + valid));
  EXPECT_EQ(split.test, Lines(shuffled.begin() + train + valid, shuffled.end()));
}

TEST(SplitGroupedBySource, BadInputNamesFileAndLine) {
  test::TempDir dir;
  const std::string path = dir.file("pairs.tsv");
  const auto split = [&] { split_lines_grouped_by_source(path, 1, 80, 10); };
  EXPECT_EQ(error_of(split), path + ": cannot be read (missing or not a file)");
  test::write_file(path, "\n\r\n");
  EXPECT_EQ(error_of(split), path + ": holds no lines to split");
  test::write_file(path, "Hello.\tBonjour.\n\nGood night.  Bonne nuit.\n");
  EXPECT_EQ(error_of(split), path + ": line 3: no TAB between source and translation");
  test::write_file(path, "Hello.\tBonjour.\n\tSalut.\n");
  EXPECT_EQ(error_of(split), path + ": line 2: empty source before the TAB");
  test::write_file(path, "Hello.\tBonjour.\n");
  EXPECT_EQ(error_of([&] { split_lines_grouped_by_source(path, 1, 90, 20); }),
            "split percentages must be ≥ 0 and sum to at most 100, got 90.000000 and 20.000000");
  EXPECT_EQ(error_of([&] { split_lines_grouped_by_source(path, 1, -5, 20); }),
            "split percentages must be ≥ 0 and sum to at most 100, got -5.000000 and 20.000000");
}

TEST(SplitGroupedBySource, ASourceWithManyTranslationsIsOneItem) {
  // Two sources: one with five translations, one with one. 50 / 0 / 50 puts one source in each.
  test::TempDir dir;
  test::write_file(dir.file("pairs.tsv"), "Run!\tCours !\nRun!\tCourez !\nHi.\tSalut.\nRun!\tFuis !\nRun!\tFuyez !\nRun!\tFile !\n");
  const auto split = split_lines_grouped_by_source(dir.file("pairs.tsv"), 1, 50, 0);
  EXPECT_EQ(sources_of(split.train).size(), 1u);
  EXPECT_TRUE(split.valid.empty());
  EXPECT_EQ(sources_of(split.test).size(), 1u);
  EXPECT_EQ(split.train.size() + split.test.size(), 6u);
}

TEST(ClassifierData, SeededSplitIsReproducibleAndComplete) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += std::to_string(i % 5 + 1) + "\tline " + std::to_string(i) + "\n";
  write_file(dir.file("all.tsv"), text);
  const auto a = split_labelled_lines(dir.file("all.tsv"), 7, 80, 10);
  const auto b = split_labelled_lines(dir.file("all.tsv"), 7, 80, 10);
  const auto c = split_labelled_lines(dir.file("all.tsv"), 8, 80, 10);
  EXPECT_EQ(a.train.size(), 80u);
  EXPECT_EQ(a.valid.size(), 10u);
  EXPECT_EQ(a.test.size(), 10u);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.test, b.test);
  EXPECT_NE(a.train, c.train);
  std::vector<std::string> all = a.train;
  all.insert(all.end(), a.valid.begin(), a.valid.end());
  all.insert(all.end(), a.test.begin(), a.test.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(all.size(), 100u);
  EXPECT_THROW(split_labelled_lines(dir.file("all.tsv"), 7, 80, 30), Error);
}

}  // namespace
}  // namespace aw
