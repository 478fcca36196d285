// tests/models/nn/test_config_enums.cpp — models/nn/config_enums.h: every named mode of a config reads back
// from the name it prints.
#include "models/nn/config_enums.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

template <typename Enum>
void expect_names_round_trip() {
  for (const auto value : all_values<Enum>()) {
    const auto name = to_string(value);
    const auto parsed = parse_enum<Enum>(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, value) << name;
  }
  EXPECT_FALSE(parse_enum<Enum>("no such name").has_value());
}

TEST(ConfigEnums, EveryValueRoundTripsThroughItsName) {
  expect_names_round_trip<ModelFamily>();
  expect_names_round_trip<Pooling>();
  expect_names_round_trip<LamaContext>();
  expect_names_round_trip<Regularizer>();
  expect_names_round_trip<TokenizerKind>();
  expect_names_round_trip<DiagMode>();
  EXPECT_EQ(to_string(ModelFamily::BiGruMean), "bigru_mean");
  EXPECT_EQ(to_string(TokenizerKind::Gpt2Bpe), "gpt2_bpe");
  EXPECT_EQ(to_string(DiagMode::Magnified), "magnified");
}

}  // namespace
}  // namespace aw
