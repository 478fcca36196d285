// tests/models/test_errors.cpp — models/errors.h: text from a file quoted short and escaped in a message,
// so a hostile line cannot flood or split it.
#include "models/errors.h"

#include <gtest/gtest.h>

#include <string>

namespace aw {
namespace {

TEST(QuotedExcerpt, EscapesControlCharactersAndCutsAtACharacterBoundary) {
  EXPECT_EQ(quoted_excerpt("cat"), "'cat'");
  EXPECT_EQ(quoted_excerpt("a\tb\nc\rd\x01\x7F"), "'a\\tb\\nc\\rd\\x01\\x7f'");
  EXPECT_EQ(quoted_excerpt(std::string(100, 'x')), "'" + std::string(100, 'x') + "'");
  EXPECT_EQ(quoted_excerpt(std::string(101, 'x')), "'" + std::string(100, 'x') + "...'");
  // "é" is 2 bytes: 99 x then é would end at byte 101, so the cut falls before it.
  EXPECT_EQ(quoted_excerpt(std::string(99, 'x') + "é" + "y"), "'" + std::string(99, 'x') + "...'");
  EXPECT_EQ(quoted_excerpt(std::string(98, 'x') + "é" + "y"), "'" + std::string(98, 'x') + "é...'");
}

}  // namespace
}  // namespace aw
