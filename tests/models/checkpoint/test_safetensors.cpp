// tests/models/checkpoint/test_safetensors.cpp — safetensors files (models/checkpoint/safetensors.h): round
// trips, 20+ malformed files each with its exact one-line error, and the writers' refusals (the streaming
// writer removing its temporary file when dropped unfinished).
#include "models/checkpoint/safetensors.h"
#include "models/errors.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

using ScratchDir = test::TempDir;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// The 8-byte little-endian header length, then the header text, then the data bytes.
std::string file_bytes(uint64_t header_length, const std::string& header, const std::string& data) {
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &header_length, 8);
  return bytes + header + data;
}

// A well-formed frame around `header` (whatever it says) and `data_bytes` zero bytes of data.
std::string file_bytes(const std::string& header, size_t data_bytes) {
  return file_bytes(header.size(), header, std::string(data_bytes, '\0'));
}

// The message open() throws for a file holding `bytes`, or "no error".
class MalformedFile : public ::testing::Test {
 protected:
  std::string open_error(const std::string& bytes) {
    write_bytes(path, bytes);
    return open_error_of(path);
  }
  static std::string open_error_of(const std::string& file) {
    try {
      SafetensorsFile::open(file);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  ScratchDir dir;
  const std::string path = dir.file("bad.safetensors");
};

std::vector<std::pair<std::string, torch::Tensor>> mixed_tensors() {
  torch::manual_seed(11);
  return {
      {"weight", torch::randn({3, 4})},
      {"half", torch::randn({5}).to(torch::kFloat16)},
      {"brain", torch::randn({2, 3}).to(torch::kBFloat16)},
      {"ids", torch::arange(-3, 4, torch::kLong)},
      {"mask", torch::tensor({true, false, true})},
      {"scalar", torch::full({}, 3.5, torch::kFloat64)},
      {"empty", torch::zeros({0, 3})},
  };
}

TEST(Safetensors, RoundTripKeepsValuesAndDtypes) {
  ScratchDir dir;
  const auto path = dir.file("model.safetensors");
  const auto written = mixed_tensors();
  write_safetensors(path, written, {{"format", "pt"}});

  const auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->file_size(), fs::file_size(path));
  for (const auto& [name, expected] : written) {
    const auto read = file->tensor(name);
    EXPECT_EQ(read.scalar_type(), expected.scalar_type()) << name;
    EXPECT_EQ(read.sizes(), expected.sizes()) << name;
    EXPECT_TRUE(torch::equal(read, expected)) << name;
  }
  EXPECT_EQ(file->record("scalar").shape, std::vector<int64_t>{});
  EXPECT_EQ(file->record("empty").shape, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(file->record("brain").dtype, "BF16");
  EXPECT_EQ(file->record("mask").dtype, "BOOL");
  EXPECT_EQ(file->metadata(), (std::map<std::string, std::string>{{"format", "pt"}}));
}

TEST(Safetensors, NamesAreSortedAndOffsetsFollowTheWrittenOrder) {
  ScratchDir dir;
  const auto path = dir.file("model.safetensors");
  write_safetensors(path, mixed_tensors());
  const auto file = SafetensorsFile::open(path);
  EXPECT_EQ(file->names(), (std::vector<std::string>{"brain", "empty", "half", "ids", "mask", "scalar", "weight"}));
  // Contiguous in the given order: weight 48, half 10, brain 12, ids 56, mask 3, scalar 8, empty 0 bytes.
  const std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> expected = {
      {"weight", {0, 48}}, {"half", {48, 58}},   {"brain", {58, 70}},   {"ids", {70, 126}},
      {"mask", {126, 129}}, {"scalar", {129, 137}}, {"empty", {137, 137}},
  };
  for (const auto& [name, range] : expected) {
    EXPECT_EQ(file->record(name).begin, range.first) << name;
    EXPECT_EQ(file->record(name).end, range.second) << name;
  }
  EXPECT_TRUE(file->metadata().empty());
}

TEST(Safetensors, HeaderIsPaddedToAMultipleOfEightAndHasNoEmptyMetadata) {
  ScratchDir dir;
  const auto path = dir.file("one.safetensors");
  write_safetensors(path, {{"x", torch::ones({3})}});
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  EXPECT_EQ(header_length % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + header_length + 12);
  const auto header = bytes.substr(8, header_length);
  EXPECT_EQ(header.rfind(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", 0), 0u) << header;
  EXPECT_EQ(header.find("__metadata__"), std::string::npos);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(Safetensors, TensorKeepsTheMappingAliveAfterTheFileIsDropped) {
  ScratchDir dir;
  const auto path = dir.file("model.safetensors");
  const auto expected = torch::arange(0, 1000, torch::kFloat32).reshape({10, 100});
  write_safetensors(path, {{"values", expected}});
  auto file = SafetensorsFile::open(path);
  const auto view = file->tensor("values");
  EXPECT_EQ(file.use_count(), 2);  // ours and the tensor's deleter
  const auto* mapped_bytes = view.data_ptr();
  file.reset();
  EXPECT_EQ(view.data_ptr(), mapped_bytes);  // still the mapped bytes, no copy
  EXPECT_TRUE(torch::equal(view, expected));
}

TEST(Safetensors, NonContiguousInputIsWrittenInLogicalOrder) {
  ScratchDir dir;
  const auto path = dir.file("t.safetensors");
  const auto transposed = torch::arange(6, torch::kFloat32).reshape({2, 3}).t();  // (3, 2), strided
  write_safetensors(path, {{"t", transposed}});
  EXPECT_TRUE(torch::equal(SafetensorsFile::open(path)->tensor("t"), transposed));
}

TEST(Safetensors, MisalignedTensorReadsCorrectly) {
  ScratchDir dir;
  const auto path = dir.file("odd.safetensors");
  // A 1-byte U8 tensor first puts the F32 tensor at an odd address.
  const std::string header =
      R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"f":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
  std::string data(9, '\0');
  const float values[2] = {1.5f, -2.0f};
  std::memcpy(data.data() + 1, values, sizeof values);
  write_bytes(path, file_bytes(header.size() + (8 - header.size() % 8) % 8,
                               header + std::string((8 - header.size() % 8) % 8, ' '), data));
  EXPECT_TRUE(torch::equal(SafetensorsFile::open(path)->tensor("f"), torch::tensor({1.5f, -2.0f})));
}

TEST_F(MalformedFile, ZeroElementTensorAndGapsAreAccepted) {
  // "z" holds no bytes; bytes 4..8 of the data section belong to no tensor.
  EXPECT_EQ(open_error(file_bytes(R"({"z":{"dtype":"F32","shape":[2,0],"data_offsets":[0,0]},)"
                                  R"("a":{"dtype":"I32","shape":[],"data_offsets":[0,4]},)"
                                  R"("b":{"dtype":"U8","shape":[2],"data_offsets":[8,10]}})",
                                  10)),
            "no error");
  EXPECT_EQ(SafetensorsFile::open(path)->tensor("z").sizes(), (std::vector<int64_t>{2, 0}));
}

TEST_F(MalformedFile, MissingFile) {
  EXPECT_EQ(open_error_of(dir.file("absent.safetensors")),
            dir.file("absent.safetensors") + ": cannot open: No such file or directory");
}

TEST_F(MalformedFile, Directory) {
  EXPECT_EQ(open_error_of(dir.path()), dir.path() + ": is a directory, not a safetensors file");
}

TEST_F(MalformedFile, EmptyFile) {
  EXPECT_EQ(open_error(""), path + ": is 0 bytes, too short for a safetensors file (at least 8)");
}

TEST_F(MalformedFile, ShorterThanTheHeaderLength) {
  EXPECT_EQ(open_error(std::string("\x05\0\0\0\0", 5)),
            path + ": is 5 bytes, too short for a safetensors file (at least 8)");
}

TEST_F(MalformedFile, HeaderLengthZero) {
  EXPECT_EQ(open_error(file_bytes(0, "", "{}")), path + ": header length is 0");
}

TEST_F(MalformedFile, HeaderLengthPastTheEnd) {
  EXPECT_EQ(open_error(file_bytes(100, "{}", "")),
            path + ": header length 100 runs past the end of the file (10 bytes)");
  EXPECT_EQ(open_error(file_bytes(~uint64_t{0}, "{}", "")),
            path + ": header length 18446744073709551615 is over the format's limit of 100000000 bytes");
  EXPECT_EQ(open_error(file_bytes(100'000'001, "{}", "")),
            path + ": header length 100000001 is over the format's limit of 100000000 bytes");
}

TEST_F(MalformedFile, InvalidJson) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": F32}})", 0)),
            path + ": header is not valid JSON (parse error at line 1, column 17, byte 17 of 21)");
}

TEST_F(MalformedFile, DeeplyNestedHeaderStopsAtTheDepthLimit) {
  const std::string deep = R"({"__metadata__": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  EXPECT_EQ(open_error(file_bytes(deep, 0)), path + ": header is not valid JSON (nested deeper than 64 levels)");
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [1e400], "data_offsets": [0, 0]}})", 0)),
            path + ": header is not valid JSON (a number is outside the range of a 64-bit float)");
}

TEST_F(MalformedFile, HeaderIsAnArray) {
  EXPECT_EQ(open_error(file_bytes("[1, 2]", 0)), path + ": header is an array, not a JSON object");
}

TEST_F(MalformedFile, EntryIsNotAnObject) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": "F32"})", 0)), path + ": entry for tensor 'x' is a string, not an object");
}

TEST_F(MalformedFile, EntryWithoutDataOffsets) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [1]}})", 4)),
            path + ": tensor 'x' has no data_offsets");
}

TEST_F(MalformedFile, DtypeThatIsNotAString) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": 32, "shape": [1], "data_offsets": [0, 4]}})", 4)),
            path + ": tensor 'x': dtype must be a string, found 32");
}

TEST_F(MalformedFile, NegativeShapeDimension) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [2, -1], "data_offsets": [0, 8]}})", 8)),
            path + ": tensor 'x': shape must be an array of non-negative integers, found [2,-1]");
}

TEST_F(MalformedFile, FractionalDataOffsets) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4.0]}})", 4)),
            path + ": tensor 'x': data_offsets must be two non-negative integers, found [0,4.0]");
}

TEST_F(MalformedFile, BeginAfterEnd) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}})", 8)),
            path + ": tensor 'x' has data_offsets [8, 4] whose begin is after its end");
}

TEST_F(MalformedFile, UnknownDtype) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "X42", "shape": [1], "data_offsets": [0, 4]}})", 4)),
            path + ": tensor 'x' has unsupported dtype 'X42'");
  EXPECT_EQ(open_error(file_bytes(R"({"y": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}})", 1)),
            path + ": tensor 'y' has unsupported dtype 'F8_E4M3'");
}

TEST_F(MalformedFile, ShapeAndDataRangeDisagree) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 20]}})", 20)),
            path + ": tensor 'x' has shape [2, 3] of F32 (24 bytes) but its data range holds 20 bytes");
}

TEST_F(MalformedFile, ShapeWhoseSizeOverflows) {
  // 2^32 × 2^32 elements wraps to 0 in 64 bits, which would match the empty range.
  EXPECT_EQ(
      open_error(file_bytes(
          R"({"x": {"dtype": "U8", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})", 0)),
      path + ": tensor 'x' has shape [4294967296, 4294967296] whose size overflows 64 bits");
  // Empty, but its strides would overflow: torch cannot even make the view.
  EXPECT_EQ(
      open_error(file_bytes(
          R"({"x": {"dtype": "U8", "shape": [0, 4294967296, 4294967296], "data_offsets": [0, 0]}})", 0)),
      path + ": tensor 'x' has shape [0, 4294967296, 4294967296] whose size overflows 64 bits");
}

TEST_F(MalformedFile, TooManyDimensions) {
  std::string ones = "1";
  for (int i = 1; i < 33; ++i) ones += ",1";
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "U8", "shape": [)" + ones + R"(], "data_offsets": [0, 1]}})", 1)),
            path + ": tensor 'x' has 33 dimensions, more than the 32 this tool accepts");
}

TEST_F(MalformedFile, RangePastTheDataSection) {
  EXPECT_EQ(open_error(file_bytes(R"({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 10)),
            path + ": tensor 'x' has data_offsets [0, 16] past the end of the 10-byte data section");
}

TEST_F(MalformedFile, OverlappingRanges) {
  EXPECT_EQ(open_error(file_bytes(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},)"
                                  R"( "b": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]}})",
                                  28)),
            path + ": tensors 'a' (data_offsets [0, 16]) and 'b' (data_offsets [12, 28]) overlap");
}

TEST_F(MalformedFile, DuplicateTensorName) {
  EXPECT_EQ(open_error(file_bytes(R"({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},)"
                                  R"( "a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})",
                                  2)),
            path + ": tensor 'a' appears twice in the header");
}

TEST_F(MalformedFile, MetadataValueThatIsNotAString) {
  EXPECT_EQ(open_error(file_bytes(R"({"__metadata__": {"format": "pt", "epoch": 3}})", 0)),
            path + ": __metadata__ value 'epoch' is a number, not a string");
}

TEST_F(MalformedFile, MetadataThatIsNotAnObject) {
  EXPECT_EQ(open_error(file_bytes(R"({"__metadata__": ["pt"]})", 0)),
            path + ": __metadata__ is an array, not an object");
}

TEST_F(MalformedFile, RecordOfAMissingName) {
  write_safetensors(path, {{"present", torch::ones({2})}});
  const auto file = SafetensorsFile::open(path);
  EXPECT_FALSE(file->contains("absent"));
  try {
    file->record("absent");
    FAIL() << "no error for a missing tensor";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": no tensor 'absent'");
  }
  EXPECT_THROW(file->tensor("absent"), Error);
}

// The message write_safetensors throws, or "no error".
std::string write_error(const std::string& path, const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
  try {
    write_safetensors(path, tensors);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(SafetensorsWriter, MissingDirectoryIsNamed) {
  ScratchDir dir;
  const auto path = dir.file("no/such/folder/model.safetensors");
  EXPECT_EQ(write_error(path, {{"x", torch::ones({2})}}), path + ": cannot write: No such file or directory");
}

TEST(SafetensorsWriter, DuplicateNameIsRefused) {
  ScratchDir dir;
  const auto path = dir.file("dup.safetensors");
  EXPECT_EQ(write_error(path, {{"x", torch::ones({2})}, {"x", torch::zeros({2})}}),
            path + ": duplicate tensor name 'x'");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(SafetensorsWriter, UnsupportedDtypeIsRefused) {
  ScratchDir dir;
  const auto path = dir.file("complex.safetensors");
  EXPECT_EQ(write_error(path, {{"c", torch::ones({2}, torch::kComplexFloat)}}),
            path + ": tensor 'c' has unsupported dtype ComplexFloat");
  EXPECT_FALSE(fs::exists(path));
}

TEST(SafetensorsWriter, OverwritesAnExistingFile) {
  ScratchDir dir;
  const auto path = dir.file("model.safetensors");
  write_safetensors(path, {{"old", torch::ones({100})}});
  write_safetensors(path, {{"new", torch::ones({2})}});
  EXPECT_EQ(SafetensorsFile::open(path)->names(), std::vector<std::string>{"new"});
}

TEST(SafetensorsWriter, RefusesWhatWasNotDeclaredAndRemovesItsTemporaryFile) {
  TempDir dir;
  const auto path = dir.path() + "/t.safetensors";
  {
    SafetensorsWriter writer(path, {{"a", torch::kFloat32, {2, 3}}});
    EXPECT_EQ(test::error_of([&] { writer.write(torch::zeros({3, 2})); }),
              path + ": tensor 'a' is Float [3, 2], declared Float [2, 3]");
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  {
    SafetensorsWriter writer(path, {{"a", torch::kFloat32, {2}}, {"b", torch::kFloat16, {1}}});
    writer.write(torch::ones({2}));
    EXPECT_EQ(test::error_of([&] { writer.finish(); }), path + ": 1 of 2 declared tensors written");
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  {
    SafetensorsWriter writer(path, {{"a", torch::kFloat32, {2}}});
    writer.write(torch::ones({2}));
  }  // destroyed unfinished (an exception unwinding past it)
  EXPECT_TRUE(fs::is_empty(dir.path()));
  SafetensorsWriter writer(path, {{"a", torch::kFloat32, {2}}});
  writer.write(torch::tensor({1.5f, 2.5f}));
  writer.finish();
  EXPECT_TRUE(torch::equal(SafetensorsFile::open(path)->tensor("a"), torch::tensor({1.5f, 2.5f})));
}

}  // namespace
}  // namespace aw
