// tests/analysis/core/test_descriptor.cpp — setting values checked with the messages both front ends show,
// the model check and a run's progress (analysis/core/descriptor)
#include "analysis/core/descriptor.h"
#include "analysis/core/registry.h"
#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace aw {
namespace {

using test::analysis;
using test::DescriptorRun;
using test::setting_error_of;

TEST(SettingValues, DefaultsComeFromTheFields) {
  auto settings = analysis("ablate").settings();
  EXPECT_EQ(settings.choice("mode"), "single");
  EXPECT_EQ(settings.integer("batch"), 8);
  EXPECT_FALSE(settings.flag("all"));
  EXPECT_FALSE(settings.given("window"));
  settings.set("batch", "3");
  settings.set_flag("all", true);
  EXPECT_EQ(settings.integer("batch"), 3);
  EXPECT_TRUE(settings.flag("all"));
}

TEST(SettingValues, BadValuesNameTheFieldAndTheValue) {
  auto settings = analysis("ablate").settings();
  settings.set("text", "corpus.txt");
  settings.set("window", "ten");
  EXPECT_EQ(setting_error_of([&] { settings.integer("window"); }), "--window expects an integer, got 'ten'");
  settings.set("window", "1");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--window must be at least 2, got 1");
  settings.erase("window");
  settings.set("mode", "double");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--mode must be single or all-but-one, got 'double'");
  auto prune = analysis("prune").settings();
  prune.set("text", "corpus.txt");
  prune.set("order", "random");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--order must be importance, oracle or both, got 'random'");
  prune.erase("order");
  prune.set("step", "101");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--step must be at most 100, got 101");
}

TEST(SettingValues, UnknownAndMissingSettingsAreRefused) {
  auto settings = analysis("importance").settings();
  settings.set("windwo", "8");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--windwo is not a setting of this analysis");
  settings.erase("windwo");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }), "--text is required");
}

// A setting given where another one does not allow it is refused before anything runs, with the
// refusal its field declares (applies_when), whichever front end gave it.
TEST(SettingValues, ASettingItsConditionsRuleOutIsRefused) {
  auto settings = analysis("ablate").settings();
  settings.set("text", "corpus.txt");
  settings.set_flag("all", true);
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }),
            "--all gives every lone head's row; it needs --mode all-but-one");
  settings.set("mode", "all-but-one");
  settings.validate();
  settings.set("choose-on", "valid.txt");
  EXPECT_EQ(setting_error_of([&] { settings.validate(); }),
            "--choose-on keeps one chosen head per layer; it cannot give every head's row (--all)");
  settings.set_flag("all", false);
  settings.validate();
  auto prune = analysis("prune").settings();
  prune.set("text", "corpus.txt");
  prune.set("max-drop", "5");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--max-drop applies with --series only");
  prune.set_flag("series", true);
  prune.validate();
  prune.set("beam", "2");
  EXPECT_EQ(setting_error_of([&] { prune.validate(); }), "--beam applies with --metric bleu (translations to score)");
  prune.set("metric", "bleu");
  prune.validate();
}

// Every condition names a setting of its own analysis and values that setting can take, so no
// condition is one nothing can meet.
TEST(SettingValues, EveryConditionCanBeMet) {
  for (const auto& descriptor : analysis_registry())
    for (const auto& field : descriptor.fields)
      for (const auto& condition : field.applies_when) {
        const auto where = descriptor.name + " --" + field.name + " on --" + condition.field;
        const auto* other = descriptor.field(condition.field);
        ASSERT_NE(other, nullptr) << where;
        EXPECT_FALSE(condition.refusal.empty()) << where;
        for (const auto& value : condition.values) {
          if (other->kind == FieldKind::Flag) EXPECT_TRUE(value.empty() || value == "1") << where << ": " << value;
          if (other->kind == FieldKind::Choice && !value.empty())
            EXPECT_NE(std::find(other->choices.begin(), other->choices.end(), value), other->choices.end())
                << where << ": " << value;
        }
      }
}

TEST(SettingValues, ListsSkipEmptyItems) {
  auto settings = analysis("word-weights").settings();
  settings.set("words", "good,,bad,");
  EXPECT_EQ(settings.list("words"), (std::vector<std::string>{"good", "bad"}));
}

TEST_F(DescriptorRun, TheModelCheckHasOneMessage) {
  const auto lama = load_checkpoint(dir_.file("lama"));
  AnalysisRequest request;
  request.models = {&lama};
  request.settings = analysis("stats").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  try {
    analysis("stats")(request);
    FAIL() << "stats ran on a LAMA model";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              dir_.file("lama") +
                  ": stats needs a causal language model or a translation model; this checkpoint is a lama classifier");
  }
}

TEST_F(DescriptorRun, ProgressCancelsARun) {
  const auto lm = load_checkpoint(dir_.file("lm"));
  AnalysisRequest request;
  request.models = {&lm};
  request.settings = analysis("stats").settings();
  request.settings.set("text", dir_.file("corpus.txt"));
  request.settings.set("window", "4");
  request.settings.set("batch", "1");
  std::vector<std::string> phases;
  request.progress = [&phases](int64_t done, int64_t, const std::string& phase) {
    phases.push_back(phase);
    return done < 2;
  };
  EXPECT_TRUE(analysis("stats")(request).cancelled);
  EXPECT_EQ(phases.front(), "lm: batches");
}

}  // namespace
}  // namespace aw
