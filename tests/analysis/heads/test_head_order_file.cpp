// tests/analysis/heads/test_head_order_file.cpp — pruning orders read from importance and ablation CSVs
// (analysis/heads/head_order_file.h): the order of hand-written files, and every refusal's exact message.
#include "analysis/heads/head_order_file.h"
#include "models/errors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

using test::error_of;
using test::TempDir;

std::vector<std::pair<int64_t, int64_t>> positions(const std::vector<HeadRef>& heads) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const auto& head : heads) pairs.emplace_back(head.layer, head.head);
  return pairs;
}

class HeadOrderFileTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const auto path = dir_.file("order.csv");
    test::write_file(path, text);
    return path;
  }
  std::string error(const std::string& text, const std::vector<int64_t>& blocks = {}) {
    const auto path = write(text);
    return error_of([&] { read_head_order_file(path, config_, "tiny", blocks); });
  }
  TempDir dir_;
  ModelConfig config_ = test::tiny_config("transformer_lm");  // 2 layers × 3 heads
};

TEST_F(HeadOrderFileTest, ImportanceIsPrunedInAscendingOrder) {
  const auto file = read_head_order_file(
      write("# model=m, normalized=true\nlayer,head,importance\n1,1,0.5\n1,2,0.1\n1,3,0.3\n2,1,0.1\n2,2,0.9\n2,3,0.7\n"),
      config_, "tiny", {});
  EXPECT_EQ(file.kind, "importance");
  // Ties (0.1) go to the lower layer first.
  EXPECT_EQ(positions(file.order), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}, {0, 2}, {0, 0}, {1, 2}, {1, 1}}));
}

TEST_F(HeadOrderFileTest, AblationIsPrunedInAscendingDamageForEitherMetricDirection) {
  const std::string rows = "1,1,9,2.0\n1,2,9,-1.0\n1,3,9,0.5\n2,1,9,0.0\n2,2,9,3.0\n2,3,9,-0.5\n";
  // Perplexity: a larger delta is more damage, so the most negative delta goes first.
  auto file = read_head_order_file(write("# model=m, metric=perplexity, baseline=9, mode=single\nlayer,head,metric,delta\n" + rows),
                                   config_, "tiny", {});
  EXPECT_EQ(file.kind, "oracle");
  EXPECT_EQ(positions(file.order), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}, {1, 0}, {0, 2}, {0, 0}, {1, 1}}));
  // Accuracy: a falling metric is damage, so the largest delta goes first. Only layer 2 is chosen.
  file = read_head_order_file(write("# model=m, metric=accuracy, mode=single, bootstrap=10\nlayer,head,metric,delta,p_value\n" +
                                    std::string("1,1,9,2.0,1\n1,2,9,-1.0,1\n1,3,9,0.5,1\n2,1,9,0.0,1\n2,2,9,3.0,1\n2,3,9,-0.5,1\n")),
                              config_, "tiny", {1});
  EXPECT_EQ(positions(file.order), (std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 0}, {1, 2}}));
}

TEST_F(HeadOrderFileTest, BadFilesAreRefusedWithOneLineNamingTheFile) {
  const auto path = dir_.file("order.csv");
  const std::string header = "layer,head,importance\n";
  const std::string rows = "1,1,0.5\n1,2,0.1\n1,3,0.3\n2,1,0.1\n2,2,0.9\n2,3,0.7\n";
  EXPECT_EQ(error_of([&] { read_head_order_file(dir_.file("none.csv"), config_, "tiny", {}); }),
            dir_.file("none.csv") + ": cannot be read");
  EXPECT_EQ(error("# model=m\n"), path + ": has no header line (expected a CSV from importance or ablate --mode single)");
  EXPECT_EQ(error("layer,best_head,metric,delta\n1,2,5,1\n"),
            path + ": is an all-but-one ablation (each head kept alone); an order needs each head's own effect: an "
                   "importance CSV or one from ablate --mode single");
  EXPECT_EQ(error("# metric=perplexity, mode=all-but-one\nlayer,head,metric,delta\n1,2,5,1\n"),
            path + ": is an all-but-one ablation (each head kept alone); an order needs each head's own effect: an "
                   "importance CSV or one from ablate --mode single");
  EXPECT_EQ(error("order,percent_pruned,metric\n"), path + ": has no layer and head columns (is it an importance or ablate CSV?)");
  EXPECT_EQ(error("layer,head,metric\n1,1,3\n"),
            path + ": has neither an importance nor a delta column (expected a CSV from importance or ablate --mode single)");
  EXPECT_EQ(error("layer,head,metric,delta\n1,1,3,1\n"),
            path + ": has a delta column but no '# …, metric=perplexity' (or accuracy, bleu) line to say which direction is damage");
  EXPECT_EQ(error("kind,layer,head,importance\ndec,1,1,0.5\n"),
            path + ": has a kind column (a translation model's), but tiny is a transformer_lm language model");
  EXPECT_EQ(error(header + "1,1\n"), path + ": line 2: 2 fields, but the header has 3");
  EXPECT_EQ(error(header + "one,1,0.5\n"), path + ": line 2: layer 'one' is not a number");
  EXPECT_EQ(error(header + "1,1,nan\n"), path + ": line 2: importance 'nan' is not a finite number");
  EXPECT_EQ(error(header + "3,1,0.5\n"), path + ": line 2: layer 3 is not in tiny (a transformer_lm language model)");
  EXPECT_EQ(error(header + "1,4,0.5\n"), path + ": line 2: layer 1 head 4 is not in tiny, whose layer 1 has 3 heads");
  EXPECT_EQ(error(header + rows + "2,2,0.3\n"), path + ": line 8: layer 2 head 2 appears a second time");
  EXPECT_EQ(error(header + "1,1,0.5\n1,2,0.1\n1,3,0.3\n2,1,0.1\n2,3,0.7\n"),
            path + ": has no row for layer 2 head 2 (every head to prune needs a score)");
  // A head of a block that is not pruned may be missing.
  EXPECT_NO_THROW(read_head_order_file(write(header + "1,1,0.5\n1,2,0.1\n1,3,0.3\n"), config_, "tiny", {0}));
}

}  // namespace
}  // namespace aw
