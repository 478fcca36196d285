// tests/models/test_attention_kind.cpp — models/attention_kind.h: every attention kind reads back from the
// name it prints.
#include "models/attention_kind.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(ConfigEnums, AttentionKindsRoundTripThroughTheirNames) {
  for (const auto kind : kAttentionKinds) EXPECT_EQ(parse_attention_kind(to_string(kind)), kind) << to_string(kind);
  EXPECT_EQ(to_string(AttentionKind::Cross), "cross");
  EXPECT_FALSE(parse_attention_kind("layer").has_value());
}

}  // namespace
}  // namespace aw
