// tests/analysis/heads/test_checkpoint_series.cpp — a run's epoch folders in numeric order, clear errors, and
// their tables joined with epoch and step (analysis/heads/checkpoint_series)
#include "analysis/heads/checkpoint_series.h"
#include "models/errors.h"
#include "table/csv_format.h"
#include "table/result_table.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace aw {
namespace {

TEST(CheckpointSeries, EpochFoldersInNumericOrderAndClearErrors) {
  test::TempDir dir;
  auto write_epoch = [&](const std::string& name, int epoch) {
    std::filesystem::create_directories(dir.file(name));
    test::write_file(dir.file(name + "/training.json"),
                     "{\"history\": {\"metric\": \"accuracy\", \"steps\": [], \"epochs\": [{\"epoch\": " +
                         std::to_string(epoch) + ", \"step\": " + std::to_string(3 * epoch) +
                         ", \"train_loss\": 1.0, \"valid_loss\": 0.5, \"valid_accuracy\": 0.7}]}}");
  };
  try {
    checkpoint_series(dir.path());
    ADD_FAILURE() << "an empty folder is no series";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.path() + ": has no epoch-N checkpoint folders (train with --keep-epochs to keep one per epoch)");
  }
  write_epoch("epoch-10", 10);
  write_epoch("epoch-2", 2);
  write_epoch("epoch-x", 1);  // not an epoch folder: ignored
  test::write_file(dir.file("epoch-3"), "a file, not a folder");
  const auto series = checkpoint_series(dir.path());
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].epoch, 2);
  EXPECT_EQ(series[0].step, 6);
  EXPECT_EQ(series[1].epoch, 10);
  ResultTable joined, a, b;
  joined.meta("model", "m");
  for (auto* table : {&a, &b}) table->meta("ignored", 1).add_column("layer", ColumnType::Integer).add_column("v", ColumnType::Number);
  a.row(1, 0.5);
  b.row(1, 0.25);
  b.row(2, 1.0);
  EXPECT_EQ(write_csv(series_table(joined, series, {a, b})),
            "# model=m\nepoch,step,layer,v\n2,6,1,0.5\n10,30,1,0.25\n10,30,2,1\n");
  write_epoch("epoch-4", 5);
  try {
    checkpoint_series(dir.path());
    ADD_FAILURE() << "a history that disagrees with the folder's name";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir.file("epoch-4") + "/training.json: its history does not end at epoch 4 as the folder's name says");
  }
}

}  // namespace
}  // namespace aw
