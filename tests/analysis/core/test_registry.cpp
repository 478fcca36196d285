// tests/analysis/core/test_registry.cpp — every analysis registered once with well-formed fields
// (analysis/core/registry)
#include "analysis/core/registry.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace aw {
namespace {

using test::analysis;

TEST(Registry, ListsEveryAnalysisOnceWithWellFormedFields) {
  std::set<std::string> names;
  for (const auto& descriptor : analysis_registry()) {
    EXPECT_TRUE(names.insert(descriptor.name).second) << descriptor.name;
    EXPECT_FALSE(descriptor.summary.empty()) << descriptor.name;
    EXPECT_TRUE(descriptor.run) << descriptor.name;
    std::set<std::string> fields;
    for (const auto& field : descriptor.fields) {
      EXPECT_TRUE(fields.insert(field.name).second) << descriptor.name << " --" << field.name;
      EXPECT_TRUE(std::regex_match(field.name, std::regex("[a-z][a-z0-9-]*"))) << field.name;
      EXPECT_FALSE(field.label.empty()) << descriptor.name << " --" << field.name;
      // A default must pass its own field's checks.
      auto settings = descriptor.settings();
      if (!field.default_text.empty() && field.kind == FieldKind::Integer) EXPECT_NO_THROW(settings.integer(field.name));
      if (!field.default_text.empty() && field.kind == FieldKind::Choice) EXPECT_NO_THROW(settings.choice(field.name));
    }
    for (const auto& output : descriptor.outputs) EXPECT_FALSE(fields.count(output.option)) << output.option;
  }
  EXPECT_EQ(names, (std::set<std::string>{"eval", "stats", "top-tokens", "diag-sweep", "ablate", "importance", "prune",
                                          "head-types", "patch", "path-patch", "eap", "logit-lens", "composition",
                                          "token-attribution", "retrieval-heads", "word-weights", "keywords", "training"}));
}

}  // namespace
}  // namespace aw
