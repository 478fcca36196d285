// tests/analysis/capture/test_kept_state.cpp — a state kept in a temporary file (analysis/capture/kept_state.h)
// reads back exactly as it went in, leaves no file behind, is closed on a thread of its own once let go
// of, and a folder that cannot take it is named in one line.
#include "analysis/capture/kept_state.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

// TMPDIR set to `folder` for the scope, as it was after.
struct TemporaryFolder {
  explicit TemporaryFolder(const std::string& folder) {
    if (const char* was = std::getenv("TMPDIR")) before = was;
    setenv("TMPDIR", folder.c_str(), 1);
  }
  ~TemporaryFolder() {
    if (before.empty()) unsetenv("TMPDIR");
    else setenv("TMPDIR", before.c_str(), 1);
  }
  std::string before;
};

TEST(KeptState, AFileGivesBackTheSameValuesAndLeavesNothingBehind) {
  const auto folder = fs::temp_directory_path() / "aw-kept-state-test";
  fs::remove_all(folder);
  fs::create_directories(folder);
  TemporaryFolder tmpdir(folder.string());
  torch::manual_seed(3);
  for (const auto dtype : {torch::kFloat32, torch::kBFloat16, torch::kFloat64}) {
    const auto state = torch::randn({1, 37, 12}).to(dtype);
    const auto in_memory = KeptState::keep(state, false);
    EXPECT_FALSE(in_memory->in_file());
    EXPECT_TRUE(in_memory->tensor().is_same(state));
    const auto in_file = KeptState::keep(state, true);
    EXPECT_TRUE(in_file->in_file());
    EXPECT_TRUE(fs::is_empty(folder)) << "the file is unlinked as soon as it is made";
    for (int read = 0; read < 2; ++read) {  // as often as asked, each a copy of its own
      const auto back = in_file->tensor();
      EXPECT_EQ(back.scalar_type(), dtype);
      EXPECT_EQ(back.sizes(), state.sizes());
      EXPECT_TRUE(torch::equal(back, state));
      EXPECT_FALSE(back.is_same(state));
    }
  }
  // A strided view goes in as its values.
  const auto wide = torch::randn({1, 12, 37});
  EXPECT_TRUE(torch::equal(KeptState::keep(wide.transpose(1, 2), true)->tensor(), wide.transpose(1, 2)));
  fs::remove_all(folder);
}

size_t open_descriptors() {
  return static_cast<size_t>(std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator()));
}

// A let-go-of state's descriptor is closed later, on the closer's thread: once it says it has closed
// what it was given, every one of them is (none leaks), and keeping and reading others went on meanwhile.
TEST(KeptState, LetGoOfFilesAreAllClosedOnceTheCloserSaysSo) {
  KeptState::wait_until_files_closed();
  const auto before = open_descriptors();
  const auto state = torch::randn({1, 64, 32});
  std::vector<std::shared_ptr<const KeptState>> kept;
  for (int i = 0; i < 20; ++i) kept.push_back(KeptState::keep(state * i, true));
  EXPECT_EQ(open_descriptors(), before + 20);
  for (int round = 0; round < 3; ++round) {
    kept.clear();  // each destructor hands its descriptor over
    for (int i = 0; i < 5; ++i) {
      kept.push_back(KeptState::keep(state + i, true));
      EXPECT_TRUE(torch::equal(kept.back()->tensor(), state + i));
    }
  }
  kept.clear();
  KeptState::wait_until_files_closed();
  EXPECT_EQ(open_descriptors(), before);
}

TEST(KeptState, AFolderThatCannotTakeItIsNamed) {
  TemporaryFolder tmpdir("/nonexistent/aw-states");
  EXPECT_EQ(test::error_of([] { KeptState::keep(torch::ones({1, 4, 3}), true); }),
            "cannot make a file for a long text's layer states in /nonexistent/aw-states (the temporary folder, "
            "TMPDIR): No such file or directory");
}

}  // namespace
}  // namespace aw
