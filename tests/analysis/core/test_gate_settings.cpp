// tests/analysis/core/test_gate_settings.cpp — --heads-off parsed, formatted and resolved against models
// (analysis/core/gate_settings)
#include "analysis/core/gate_settings.h"
#include "tests/support/descriptor_run.h"

#include <gtest/gtest.h>

#include <vector>

namespace aw {
namespace {

using test::setting_error_of;

// --heads-off as written, as the window formats it, and checked against a model.
TEST(GateSettings, ParseFormatAndResolveAgainstTheModel) {
  const auto groups = parse_heads_off(" 2.3, 1.1 ;none;cross1.2");
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(heads_off_group_text(groups[0]), "2.3,1.1");
  EXPECT_TRUE(groups[1].empty());
  EXPECT_EQ(groups[2][0].kind, "cross");
  EXPECT_EQ(heads_off_text(groups), "2.3,1.1;none;cross1.2");
  EXPECT_EQ(heads_off_text(parse_heads_off("none")), "");  // every head on: nothing to record
  EXPECT_EQ(parse_heads_off("").size(), 1u);
  EXPECT_EQ(setting_error_of([] { parse_heads_off("2.0"); }),
            "--heads-off expects LAYER.HEAD entries counted from 1 (2.3; enc2.3, dec1.2 or cross1.4 for a translation "
            "model), got '2.0'");
  EXPECT_EQ(setting_error_of([] { parse_heads_off("2,3"); }).substr(0, 30), "--heads-off expects LAYER.HEAD");

  const auto config = test::tiny_config("transformer_lm");  // 2 layers × 3 heads
  const std::vector<const ModelConfig*> one{&config};
  const auto resolved = resolve_heads_off(parse_heads_off("2.3,1.1"), one, {"lm"});
  ASSERT_EQ(resolved.size(), 1u);
  ASSERT_EQ(resolved[0].size(), 2u);
  EXPECT_EQ(resolved[0][0].layer, 1);
  EXPECT_EQ(resolved[0][0].head, 2);
  EXPECT_EQ(heads_off_group_text(heads_off_group(resolved[0], config)), "2.3,1.1");
  EXPECT_EQ(setting_error_of([&] { resolve_heads_off(parse_heads_off("1.4"), one, {"lm"}); }),
            "--heads-off 1.4: layer 1 of lm has 3 heads");
  EXPECT_EQ(setting_error_of([&] { resolve_heads_off(parse_heads_off("1.1;1.1"), one, {"lm"}); }),
            "--heads-off has 2 groups for 1 model: give one per --model, separated by ';' (none: every head on)");
  const std::vector<const ModelConfig*> two{&config, &config};
  EXPECT_EQ(resolve_heads_off(parse_heads_off("none"), two, {"a", "b"}).size(), 2u);  // all on for any number
  EXPECT_EQ(resolve_heads_off(parse_heads_off("none;2.2"), two, {"a", "b"})[1][0].head, 1);
}

}  // namespace
}  // namespace aw
