// tests/models/checkpoint/test_gguf_dequantise.cpp — models/checkpoint/gguf_dequantise.h against the gguf
// package's numpy reference (gguf.quants.dequantize), which scripts/fixtures/make_gguf_fixtures.py ran on
// tests/fixtures/gguf/tensors.gguf: every supported type equals it bit for bit, in PyTorch's row-major
// order. Also the f16 / bf16 conversions on their edge cases, the threaded path against the serial one,
// and the type table against ggml's ids. No LibTorch.
#include "models/checkpoint/gguf_dequantise.h"
#include "models/checkpoint/gguf_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace aw {
namespace {

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/gguf/";

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// "" when `actual` and `expected` hold the same bits, else how many differ and the largest gap.
std::string bitwise_difference(const std::vector<float>& actual, const std::vector<float>& expected) {
  if (actual.size() != expected.size())
    return std::to_string(actual.size()) + " values, expected " + std::to_string(expected.size());
  size_t differing = 0;
  double largest = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (bits_of(actual[i]) == bits_of(expected[i])) continue;
    ++differing;
    largest = std::max(largest, std::fabs(static_cast<double>(actual[i]) - expected[i]));
  }
  if (differing == 0) return "";
  return std::to_string(differing) + " of " + std::to_string(actual.size()) + " values differ, max |a − b| = " +
         std::to_string(largest);
}

TEST(GgufDequantise, EveryTypeEqualsThePackagesReferenceBitForBit) {
  const auto file = GgufFile::open(kFixtures + "tensors.gguf");
  std::ifstream index_file(kFixtures + "tensors.expected.json");
  const auto index = nlohmann::json::parse(index_file);
  std::ifstream floats_file(kFixtures + "tensors.expected.bin", std::ios::binary | std::ios::ate);
  std::vector<float> expected_all(static_cast<size_t>(floats_file.tellg()) / 4);  // little-endian float32, as the host
  floats_file.seekg(0);
  floats_file.read(reinterpret_cast<char*>(expected_all.data()), static_cast<std::streamsize>(4 * expected_all.size()));
  ASSERT_TRUE(floats_file.good());

  ASSERT_EQ(index.size(), file->tensors().size());
  std::vector<std::string> types;
  for (const auto& [name, entry] : index.items()) {
    SCOPED_TRACE(name);
    const auto& tensor = file->tensor(name);
    EXPECT_EQ(tensor.type_name(), entry.at("type").get<std::string>());
    EXPECT_EQ(tensor.shape, entry.at("shape").get<std::vector<int64_t>>());
    const auto first = entry.at("first").get<size_t>();
    const auto count = entry.at("count").get<size_t>();
    ASSERT_LE(first + count, expected_all.size());
    const std::vector<float> expected(expected_all.begin() + first, expected_all.begin() + first + count);
    EXPECT_EQ(bitwise_difference(file->dequantised(name), expected), "");
    types.push_back(tensor.type_name());
  }
  // Every type the reader supports is among them.
  for (const char* type : {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_K", "Q5_K", "Q6_K"})
    EXPECT_NE(std::find(types.begin(), types.end(), type), types.end()) << type;
}

TEST(GgufDequantise, HalfAndBfloat16EdgeCases) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);                   // largest finite
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));      // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));      // smallest subnormal
  EXPECT_EQ(half_to_float(0x83FF), -std::ldexp(1023.0f, -24));  // largest subnormal, negative
  EXPECT_EQ(bits_of(half_to_float(0x8000)), 0x80000000u);       // −0 keeps its sign
  EXPECT_EQ(half_to_float(0x7C00), INFINITY);
  EXPECT_EQ(half_to_float(0xFC00), -INFINITY);
  EXPECT_EQ(bits_of(half_to_float(0x7E01)), 0x7FC02000u);       // NaN keeps its payload, as numpy's does
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bits_of(bfloat16_to_float(0xFF81)), 0xFF810000u);
  // Every finite half is its exponent and mantissa exactly.
  for (uint32_t bits = 0; bits < 0x7C00; ++bits) {
    const float expected = (bits >> 10) == 0 ? std::ldexp(static_cast<float>(bits & 0x3FF), -24)
                                              : std::ldexp(1.0f + static_cast<float>(bits & 0x3FF) / 1024.0f,
                                                           static_cast<int>(bits >> 10) - 15);
    ASSERT_EQ(half_to_float(static_cast<uint16_t>(bits)), expected) << bits;
  }
}

TEST(GgufDequantise, ThreadsGiveTheSerialResult) {
  std::mt19937 random(66);
  for (const auto type : {GgmlType::Q4_K, GgmlType::Q6_K, GgmlType::Q8_0, GgmlType::F16}) {
    const auto& traits = *ggml_type_traits(static_cast<uint32_t>(type));
    SCOPED_TRACE(traits.name);
    const size_t blocks = (size_t{3} << 20) / traits.block_elements + 7;  // 3 Mi values and an uneven tail
    std::vector<uint8_t> bytes(blocks * traits.block_bytes);
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random() & 0x3B);  // 0x3B: no f16 infinities or NaNs
    const size_t values = blocks * traits.block_elements;
    std::vector<float> serial(values), threaded(values);
    dequantise_blocks(type, bytes.data(), values, serial.data());
    for (const unsigned threads : {2u, 3u}) {
      std::fill(threaded.begin(), threaded.end(), -1.0f);
      dequantise_blocks_parallel(type, bytes.data(), values, threaded.data(), threads);
      EXPECT_EQ(bitwise_difference(threaded, serial), "") << threads << " threads";
    }
  }
}

TEST(GgufDequantise, TypeTableMatchesGgml) {
  EXPECT_STREQ(ggml_type_traits(12)->name, "Q4_K");
  EXPECT_EQ(ggml_type_traits(12)->block_bytes, 144u);
  EXPECT_EQ(ggml_type_traits(13)->block_bytes, 176u);
  EXPECT_EQ(ggml_type_traits(14)->block_bytes, 210u);
  EXPECT_EQ(ggml_type_traits(8)->block_bytes, 34u);
  EXPECT_EQ(ggml_type_traits(2)->block_bytes, 18u);
  EXPECT_STREQ(ggml_type_traits(30)->name, "BF16");
  EXPECT_STREQ(ggml_type_traits(39)->name, "MXFP4");
  EXPECT_EQ(ggml_type_traits(31), nullptr);
  EXPECT_EQ(ggml_type_name(31), "Q4_0_4_4");
  EXPECT_EQ(ggml_type_name(99), "");
  EXPECT_TRUE(can_dequantise(GgmlType::Q5_K));
  EXPECT_FALSE(can_dequantise(GgmlType::Q3_K));
  EXPECT_FALSE(can_dequantise(GgmlType::Q4_1));
  std::vector<uint8_t> block(110);
  std::vector<float> out(256);
  EXPECT_THROW(dequantise_blocks(GgmlType::Q3_K, block.data(), 256, out.data()), std::invalid_argument);
  EXPECT_THROW(dequantise_blocks(GgmlType::Q8_0, block.data(), 33, out.data()), std::invalid_argument);
}

}  // namespace
}  // namespace aw
