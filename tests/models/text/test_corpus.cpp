// tests/models/text/test_corpus.cpp — corpora and labelled files (models/text/corpus.h): label names,
// labels checked against the model's classes, and the windows a corpus is cut into.
#include "models/errors.h"
#include "models/text/corpus.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace aw {
namespace {

using test::TempDir;
using test::write_file;

TEST(ClassifierData, LabelNamesAreNumericWhenTheyAreNumbers) {
  TempDir dir;
  write_file(dir.file("a.tsv"), "10\tx\n2\ty\n1\tz\n2\tw\n");
  EXPECT_EQ(read_label_names(dir.file("a.tsv")), (std::vector<std::string>{"1", "2", "10"}));
  write_file(dir.file("b.tsv"), "pos\tx\nneg\ty\n");
  EXPECT_EQ(read_label_names(dir.file("b.tsv")), (std::vector<std::string>{"neg", "pos"}));
  // A numeric label too long for 64 bits: a clear error (it used to be a bare "stoll").
  write_file(dir.file("huge.tsv"), "1\tx\n99999999999999999999\ty\n");
  EXPECT_EQ(test::error_of([&] { read_label_names(dir.file("huge.tsv")); }),
            dir.file("huge.tsv") + ": label '99999999999999999999' is a number too large for a class index");
  // With integer class names an integer is a name, never an index: "0" is not class "1".
  write_file(dir.file("c.tsv"), "1\tx\n0\ty\n");
  try {
    read_labelled_file(dir.file("c.tsv"), {"1", "2", "3"});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.file("c.tsv") + ": line 2: label '0' is not one of the model's classes (1, 2, 3)");
  }
}

// A corpus one token longer than a whole number of windows: that token is not a window of its own.
TEST(WindowBatches, ALastWindowOfOneTokenIsLeftOut) {
  std::vector<int64_t> ids(16 * 3 + 1, 5);
  const auto batches = make_window_batches(ids, 16, 3);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].input_ids.sizes(), torch::IntArrayRef({3, 16}));
  EXPECT_EQ(make_window_batches({7}, 16, 3).front().input_ids.sizes(), torch::IntArrayRef({1, 1}));  // the only one
  EXPECT_EQ(make_window_batches(std::vector<int64_t>(18, 5), 16, 3).front().input_ids.sizes(),
            torch::IntArrayRef({2, 16}));  // two tokens: one predicted, kept
}

}  // namespace
}  // namespace aw
