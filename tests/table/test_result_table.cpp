// tests/table/test_result_table.cpp — the result table every analysis returns (table/): its CSV as the CLI
// has always written it (metadata line, %.6g numbers, RFC 4180 quoting), reading any such file back
// (comments, quotes, repeated headers), and the JSON writer's typed values.
#include "table/csv_format.h"
#include "table/json_format.h"
#include "table/result_table.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace aw {
namespace {

ResultTable ablation_like() {
  ResultTable table;
  table.meta("model", "bet_sf").meta("metric", "perplexity").meta("baseline", 43.30131234).meta("normalized", true);
  table.add_column("layer", ColumnType::Integer)
      .add_column("head", ColumnType::Integer)
      .add_column("word", ColumnType::Text)
      .add_column("delta", ColumnType::Number)
      .add_json_column("loss", ColumnType::Number);
  table.row(1, 2, "a,b", 0.123456789, 3.5);
  table.row(2, 1, "say \"hi\"", std::numeric_limits<double>::quiet_NaN(), 4.0);
  return table;
}

TEST(ResultTable, CsvIsTheMetadataLineHeaderAndRowsWithSixDigitsAndQuoting) {
  EXPECT_EQ(write_csv(ablation_like()),
            "# model=bet_sf, metric=perplexity, baseline=43.3013, normalized=true\n"
            "layer,head,word,delta\n"
            "1,2,\"a,b\",0.123457\n"
            "2,1,\"say \"\"hi\"\"\",nan\n");
}

TEST(ResultTable, NumbersKeepTheirColumnsDigitsAndNoMetadataMeansNoCommentLine) {
  ResultTable table;
  table.add_column("loss", ColumnType::Number, 8).add_column("steps", ColumnType::Integer);
  table.row(2.718281828459, int64_t{123456789012});
  EXPECT_EQ(write_csv(table), "loss,steps\n2.7182818,123456789012\n");
  EXPECT_EQ(table.text(0, 0), "2.7182818");
  EXPECT_EQ(table.number(0, 1), 123456789012.0);
}

TEST(ResultTable, ALineThatWouldReadAsACommentOrAsNothingIsQuoted) {
  ResultTable words;
  words.add_column("word", ColumnType::Text).add_column("count", ColumnType::Integer);
  words.row("#love", 2);
  words.row("", 1);  // not the only column: an empty first field leaves the line non-empty
  EXPECT_EQ(write_csv(words), "word,count\n\"#love\",2\n,1\n");
  EXPECT_EQ(read_csv(write_csv(words)).row_count(), 2);
  ResultTable single;
  single.add_column("translation", ColumnType::Text);
  single.row("");
  EXPECT_EQ(write_csv(single), "translation\n\"\"\n");
  EXPECT_EQ(read_csv(write_csv(single)).row_count(), 1);
  // The header line too (fuzz_csv found `""` then `1`: written back, the empty header line vanished
  // and the row became the header).
  const auto unnamed = read_csv("\"\"\n1\n");
  ASSERT_EQ(unnamed.row_count(), 1);
  EXPECT_EQ(write_csv(unnamed), "\"\"\n1\n");
  EXPECT_EQ(read_csv(write_csv(unnamed)).row_count(), 1);
  ResultTable hashed;
  hashed.add_column("#", ColumnType::Integer).add_column("n", ColumnType::Integer);
  hashed.row(1, 2);
  EXPECT_EQ(write_csv(hashed), "\"#\",n\n1,2\n");
  EXPECT_EQ(read_csv(write_csv(hashed)).columns().size(), 2u);
  // A quoted field that starts with '#' is a field, not a comment, also alone on its line.
  ResultTable tags;
  tags.add_column("tag", ColumnType::Text);
  tags.row("#love");
  EXPECT_EQ(write_csv(tags), "tag\n\"#love\"\n");
  const auto tags_again = read_csv(write_csv(tags));
  ASSERT_EQ(tags_again.row_count(), 1);
  EXPECT_EQ(tags_again.text(0, 0), "#love");
  EXPECT_FALSE(tags_again.has_meta("comment"));
  // A one-column table's empty (not text) cell is a row as well.
  ResultTable sparse;
  sparse.add_column("value", ColumnType::Number);
  sparse.add_row({Cell{}});
  EXPECT_EQ(read_csv(write_csv(sparse)).row_count(), 1);
}

TEST(ResultTable, MetadataReplacesAKeyInItsPlace) {
  ResultTable table;
  table.meta("a", 1).meta("b", "x").meta("a", 2.5);
  EXPECT_EQ(write_csv(table).substr(0, 14), "# a=2.5, b=x\n\n");
  EXPECT_EQ(table.meta_text("a"), "2.5");
  EXPECT_TRUE(std::isnan(table.meta_number("b")));
  EXPECT_TRUE(std::isnan(table.meta_number("missing")));
  EXPECT_FALSE(table.has_meta("missing"));
}

TEST(ResultTable, ReadingBackGivesTheSameCsv) {
  const auto csv = write_csv(ablation_like());
  const auto read = read_csv(csv);
  EXPECT_EQ(write_csv(read), csv);
  EXPECT_EQ(read.meta_text("baseline"), "43.3013");
  EXPECT_DOUBLE_EQ(read.meta_number("baseline"), 43.3013);
  EXPECT_EQ(read.text(0, read.column("word")), "a,b");
  EXPECT_EQ(read.text(1, read.column("word")), "say \"hi\"");
  EXPECT_DOUBLE_EQ(read.number(0, read.column("delta")), 0.123457);
  EXPECT_TRUE(std::isnan(read.number(0, read.column("word"))));
  EXPECT_EQ(read.column("loss"), -1);  // JSON only: not in the CSV
}

TEST(ResultTable, ReadingJoinsRepeatedBlocksAndSplitsMetadataAtCommaSpace) {
  const auto table = read_csv(
      "# model=a, metric=perplexity, heads_off=2.3,4.1, text=my, file.txt\r\n"
      "layer,sentence,target,top1\r\n"
      "1,1,\"a,b@3\",\"x\"\r\n"
      "\n"
      "# model=b\n"
      "layer,sentence,target,top1\n"
      "2,1,x@1,\n");
  ASSERT_EQ(table.columns().size(), 4u);
  ASSERT_EQ(table.row_count(), 2);
  EXPECT_EQ(table.text(0, 2), "a,b@3");
  EXPECT_EQ(table.text(1, 3), "");
  EXPECT_EQ(table.meta_text("heads_off"), "2.3,4.1");
  EXPECT_EQ(table.meta_text("text"), "my, file.txt");  // a part without '=' continues the value before it
  EXPECT_EQ(table.meta_text("model"), "b");            // a later block's value wins
  EXPECT_EQ(table.number(1, 0), 2.0);
}

TEST(ResultTable, JsonHasTypedMetadataColumnsAndRowObjectsWithJsonOnlyColumns) {
  const auto json = table_json(ablation_like());
  EXPECT_EQ(json.at("model"), "bet_sf");
  EXPECT_DOUBLE_EQ(json.at("baseline").get<double>(), 43.30131234);  // every digit, not the CSV's six
  EXPECT_EQ(json.at("normalized"), true);
  EXPECT_EQ(json.at("columns"), nlohmann::ordered_json({"layer", "head", "word", "delta", "loss"}));
  ASSERT_EQ(json.at("rows").size(), 2u);
  EXPECT_EQ(json.at("rows")[0].at("head"), 2);
  EXPECT_EQ(json.at("rows")[0].at("word"), "a,b");
  EXPECT_DOUBLE_EQ(json.at("rows")[0].at("loss").get<double>(), 3.5);
  EXPECT_TRUE(json.at("rows")[1].at("delta").is_null());  // NaN has no JSON number
  ResultTable metadata_only;
  metadata_only.meta("perplexity", 12.5);
  EXPECT_EQ(table_json(metadata_only), nlohmann::ordered_json({{"perplexity", 12.5}}));
  EXPECT_EQ(json.begin().key(), "model");  // the table's own order: metadata first, as written
}

TEST(ResultTable, SeveralTablesAreTheMainOneWithTheOthersUnderParts) {
  ResultTables tables{{"summary", ablation_like()}, {"density", ResultTable()}};
  tables["density"].add_column("x", ColumnType::Number);
  tables["density"].row(0.5);
  const auto json = tables_json(tables, "summary");
  EXPECT_EQ(json.at("model"), "bet_sf");
  EXPECT_EQ(json.at("parts").at("density").at("rows")[0].at("x"), 0.5);
  EXPECT_FALSE(json.at("parts").contains("summary"));
}

}  // namespace
}  // namespace aw
