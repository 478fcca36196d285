// tests/support/descriptor_run.h — what the tests of the analysis descriptors share: a descriptor by
// name, the SettingError an action throws, and the DescriptorRun fixture (a tiny language model, a
// tiny LAMA classifier and their data files in a temporary folder). The fixture has external
// linkage, so the TEST_Fs of several files of one executable share it as GoogleTest requires.
#pragma once

#include "analysis/core/descriptor.h"
#include "analysis/core/registry.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace aw::test {

// The message of the SettingError `action` throws ("(no SettingError)" when it throws none).
inline std::string setting_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const SettingError& error) {
    return error.what();
  }
  return "(no SettingError)";
}

// The registered analysis `name` (std::runtime_error when there is none).
inline const AnalysisDescriptor& analysis(const std::string& name) {
  const auto* descriptor = find_analysis(name);
  if (!descriptor) throw std::runtime_error("no analysis " + name);
  return *descriptor;
}

// dir_: lm (transformer_lm), lama (a LAMA classifier), corpus.txt and other.txt (texts of their
// words), labelled.tsv (labels 1–3).
class DescriptorRun : public ::testing::Test {
 protected:
  void SetUp() override {
    write_tiny_checkpoint(dir_.file("lm"), tiny_config("transformer_lm"));
    write_tiny_checkpoint(dir_.file("lama"), tiny_lama_config());
    std::string corpus;
    for (int i = 0; i < 40; ++i) corpus += "w" + std::to_string(2 + i % 15) + (i % 9 == 8 ? "\n" : " ");
    write_file(dir_.file("corpus.txt"), corpus);
    std::string other;
    for (int i = 0; i < 48; ++i) other += "w" + std::to_string(2 + (i * 7) % 16) + (i % 11 == 10 ? "\n" : " ");
    write_file(dir_.file("other.txt"), other);
    write_file(dir_.file("labelled.tsv"), "1\tw2 w3 w4\n2\tw5 w6\n3\tw7 w8 w9 w2\n1\tw3 w3\n");
  }
  TempDir dir_;
};

}  // namespace aw::test
