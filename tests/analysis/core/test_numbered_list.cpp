// tests/analysis/core/test_numbered_list.cpp — layer and head lists ("1,3-5") and their refusals
// (analysis/core/numbered_list)
#include "analysis/core/numbered_list.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

TEST(AttentionExport, NumberedListsRefuseWhatIsNotANumberInRange) {
  EXPECT_EQ(parse_numbered_list("2,2,1", 3, "head"), (std::vector<int64_t>{0, 1}));
  for (const auto& [spec, part] : std::vector<std::pair<std::string, std::string>>{
           {"0", "0"}, {"5", "5"}, {"3-1", "3-1"}, {"1,x", "x"}, {"1-", "1-"}, {"-2", "-2"}, {"", ""}, {"1,,2", ""}})
    EXPECT_EQ(test::error_of([&] { parse_numbered_list(spec, 4, "layer"); }),
              "layers " + spec + ": '" + part + "' is not a layer from 1 to 4 or a range of them (\"1,3-5\")");
}

}  // namespace
}  // namespace aw
