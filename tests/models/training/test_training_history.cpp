// tests/models/training/test_training_history.cpp — training.json's loss history
// (models/training/training_history.h): the errors that name the file and the record.
#include "models/errors.h"
#include "models/training/training_history.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace aw {
namespace {

using test::TempDir;
using test::write_file;

void expect_error(const std::function<void()>& action, const std::string& message) {
  try {
    action();
    ADD_FAILURE() << "expected the error: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(TrainingHistoryFile, ErrorsNameTheFileAndTheRecord) {
  TempDir dir;
  expect_error([&] { read_training_history(dir.path()); },
               dir.path() + ": has no training.json (a folder written by attention-cli train has one)");
  write_file(dir.file("training.json"), R"({"epochs": 3})");
  expect_error([&] { read_training_history(dir.path()); },
               dir.file("training.json") +
                   ": holds no loss history (the run predates it; train again, or --resume it to start one)");
  EXPECT_TRUE(history_to_resume(dir.path()).epochs.empty());
  write_file(dir.file("training.json"),
             R"({"history": {"metric": "perplexity", "steps": [], "epochs": [{"epoch": 1, "step": 4, "train_loss": 2.0,)"
             R"( "valid_loss": 1.5, "valid_accuracy": 0.5}]}})");
  expect_error([&] { read_training_history(dir.path()); },
               dir.file("training.json") + ": history epoch record 1 has no number \"valid_perplexity\"");
  write_file(dir.file("training.json"), R"({"history": {"metric": "bleu", "steps": [], "epochs": []}})");
  expect_error([&] { history_to_resume(dir.path()); },
               dir.file("training.json") + ": \"history\" has no \"metric\" (perplexity or accuracy)");
}

}  // namespace
}  // namespace aw
