// tests/analysis/core/test_labelled_parts.cpp — the parts of the default split cover a labelled file once
// (analysis/core/labelled_parts)
#include "analysis/core/labelled_parts.h"
#include "models/errors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace aw {
namespace {

TEST(LabelledParts, PartsOfTheDefaultSplitCoverTheFileOnce) {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 20; ++i) text += std::to_string(1 + i % 2) + "\tdoc" + std::to_string(i) + "\n";
  test::write_file(dir.file("data.tsv"), text);
  const std::vector<std::string> labels{"1", "2"};
  std::multiset<std::string> seen;
  for (auto part : {LabelledPart::Train, LabelledPart::Valid, LabelledPart::Test})
    for (const auto& example : read_labelled_part(dir.file("data.tsv"), labels, part, 3)) seen.insert(example.text_a);
  EXPECT_EQ(seen.size(), 20u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 20u);
  std::string described;
  EXPECT_EQ(read_labelled_part(dir.file("data.tsv"), labels, LabelledPart::Test, 3, &described).size(), 2u);
  EXPECT_EQ(described, dir.file("data.tsv") + " (test part of the seed-3 80/10/10 split)");
  EXPECT_EQ(parse_labelled_part("valid"), LabelledPart::Valid);
  EXPECT_THROW(parse_labelled_part("dev"), Error);
}

}  // namespace
}  // namespace aw
