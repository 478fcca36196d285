// tests/models/checkpoint/test_gguf_file.cpp — models/checkpoint/gguf_file.h on the files
// scripts/fixtures/make_gguf_fixtures.py wrote with the gguf package (tests/fixtures/gguf/): every metadata
// value type reads back as written, tensors have their names, shapes, types and ranges; and every kind of
// bad file — cut short, patched, or built field by field here — gets its one line. No LibTorch, so the file
// also builds alone with the reader (see the report of issue 66, part 3).
#include "models/checkpoint/gguf_file.h"
#include "models/errors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace aw {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = AW_SOURCE_DIR "/tests/fixtures/gguf/";
const std::string kSupported = "supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K";

// A fresh folder, removed on destruction (tests/support's TempDir brings LibTorch with it).
class Scratch {
 public:
  Scratch() {
    std::random_device device;
    path_ = (fs::temp_directory_path() / ("aw-gguf-" + std::to_string(device()) + std::to_string(device()))).string();
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  // Writes `bytes` to <folder>/<name> and returns the path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const auto path = path_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The one-line aw::Error that opening `path` (and asking all its tensors to dequantise) gives, "" if none.
std::string open_error(const std::string& path) {
  try {
    GgufFile::open(path)->require_all_dequantisable();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

template <typename Action>
std::string error_of(Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

// GGUF fields appended one by one, so that a test can make any of them wrong.
struct Fields {
  std::string bytes;
  Fields& u32(uint32_t value) { return raw(&value, 4); }
  Fields& u64(uint64_t value) { return raw(&value, 8); }
  Fields& str(const std::string& text) { return u64(text.size()).raw(text.data(), text.size()); }
  Fields& raw(const void* data, size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return *this;
  }
};

Fields tensor_info(const std::string& name, const std::vector<uint64_t>& ne, uint32_t type, uint64_t offset) {
  Fields info;
  info.str(name).u32(static_cast<uint32_t>(ne.size()));
  for (const auto dim : ne) info.u64(dim);
  return info.u32(type).u64(offset);
}

// A version 3 file: header, the entries and infos as given, zeros to the 32-byte alignment, `data_bytes` zeros.
std::string gguf(uint64_t tensors, uint64_t entries, const std::string& body, size_t data_bytes = 0) {
  Fields file;
  file.raw("GGUF", 4).u32(3).u64(tensors).u64(entries).raw(body.data(), body.size());
  file.bytes.append((32 - file.bytes.size() % 32) % 32, '\0');
  file.bytes.append(data_bytes, '\0');
  return file.bytes;
}

// One F32 [32] tensor 'w' at offset 0 with its 128 bytes of data, after `entries`.
std::string one_tensor_file(uint64_t entry_count = 0, const std::string& entries = "") {
  return gguf(1, entry_count, entries + tensor_info("w", {32}, 0, 0).bytes, 128);
}

TEST(GgufFile, MetadataReadsBackEveryValueType) {
  const auto file = GgufFile::open(kFixtures + "metadata.gguf");
  EXPECT_EQ(file->version(), 3u);
  EXPECT_EQ(file->keys().size(), 29u);
  EXPECT_EQ(file->keys().front(), "general.architecture");
  EXPECT_EQ(file->architecture(), "llama");
  EXPECT_EQ(file->string_value("general.name"), "metadata fixture");
  EXPECT_EQ(file->integer_value("test.uint8"), 200);
  EXPECT_EQ(file->integer_value("test.int8"), -100);
  EXPECT_EQ(file->integer_value("test.uint16"), 60000);
  EXPECT_EQ(file->integer_value("test.int16"), -30000);
  EXPECT_EQ(file->integer_value("test.uint32"), 4000000000);
  EXPECT_EQ(file->integer_value("test.int32"), -2000000000);
  EXPECT_EQ(file->integer_value("test.int64"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(file->value("test.uint64").integers[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(file->float_value("test.float32"), static_cast<double>(0.1f));
  EXPECT_EQ(file->float_value("test.float64"), 1.0 + std::ldexp(1.0, -40));
  EXPECT_TRUE(file->bool_value("test.bool_true"));
  EXPECT_FALSE(file->bool_value("test.bool_false"));
  EXPECT_EQ(file->string_value("test.string"), "h\xc3\xa9llo, w\xc3\xb6rld \xe2\x9c\x93");
  EXPECT_EQ(file->string_value("test.empty_string"), "");
}

TEST(GgufFile, MetadataArraysReadBackEveryElementType) {
  const auto file = GgufFile::open(kFixtures + "metadata.gguf");
  using Ints = std::vector<int64_t>;
  EXPECT_EQ(file->integer_array("test.array.uint8"), (Ints{0, 1, 255}));
  EXPECT_EQ(file->integer_array("test.array.int8"), (Ints{-128, 0, 127}));
  EXPECT_EQ(file->integer_array("test.array.uint16"), (Ints{0, 65535}));
  EXPECT_EQ(file->integer_array("test.array.int16"), (Ints{-32768, 32767}));
  EXPECT_EQ(file->integer_array("test.array.uint32"), (Ints{1, 2, 4294967295}));
  EXPECT_EQ(file->integer_array("test.array.int32"), (Ints{-7, 7}));
  EXPECT_EQ(file->integer_array("test.array.int64"),
            (Ints{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(file->value("test.array.uint64").integers, (std::vector<uint64_t>{0, uint64_t{1} << 63}));
  EXPECT_EQ(file->float_array("test.array.float32"),
            (std::vector<double>{0.5, -1.25, static_cast<double>(3.0e-3f)}));
  EXPECT_EQ(file->float_array("test.array.float64"), (std::vector<double>{1e300, -2.5}));
  EXPECT_EQ(file->value("test.array.bool").integers, (std::vector<uint64_t>{1, 0, 1}));
  EXPECT_EQ(file->string_array("test.array.string"),
            (std::vector<std::string>{"<s>", "", "\xe2\x96\x81the", "a\nb"}));
  EXPECT_EQ(file->value("test.array.string").type_description(), "array of 4 string");
  EXPECT_EQ(file->value("test.array.string").summary(), "[4 string]");
  EXPECT_EQ(file->value("test.int8").summary(), "-100");
  EXPECT_EQ(file->value("general.name").summary(), "'metadata fixture'");
}

TEST(GgufFile, TypedGettersNameFileAndKey) {
  const auto path = kFixtures + "metadata.gguf";
  const auto file = GgufFile::open(path);
  EXPECT_EQ(error_of([&] { file->integer_value("llama.block_count"); }), path + ": no metadata key 'llama.block_count'");
  EXPECT_EQ(error_of([&] { file->integer_value("general.architecture"); }),
            path + ": metadata key 'general.architecture' is string, not an integer");
  EXPECT_EQ(error_of([&] { file->string_value("test.uint32"); }), path + ": metadata key 'test.uint32' is uint32, not a string");
  EXPECT_EQ(error_of([&] { file->float_value("test.int32"); }), path + ": metadata key 'test.int32' is int32, not a float");
  EXPECT_EQ(error_of([&] { file->bool_value("test.uint8"); }), path + ": metadata key 'test.uint8' is uint8, not a bool");
  EXPECT_EQ(error_of([&] { file->integer_array("test.array.string"); }),
            path + ": metadata key 'test.array.string' is array of 4 string, not an array of integers");
  EXPECT_EQ(error_of([&] { file->string_array("test.string"); }),
            path + ": metadata key 'test.string' is string, not an array of strings");
  EXPECT_EQ(error_of([&] { file->float_array("test.array.int32"); }),
            path + ": metadata key 'test.array.int32' is array of 2 int32, not an array of floats");
  EXPECT_EQ(error_of([&] { file->integer_value("test.array.int32"); }),
            path + ": metadata key 'test.array.int32' is array of 2 int32, not an integer");
  EXPECT_EQ(error_of([&] { file->integer_value("test.uint64"); }),
            path + ": metadata key 'test.uint64' holds 18446744073709551615, more than an int64 holds");
  EXPECT_EQ(error_of([&] { file->integer_array("test.array.uint64"); }),
            path + ": metadata key 'test.array.uint64' holds 9223372036854775808, more than an int64 holds");
  EXPECT_EQ(error_of([&] { file->tensor("nope"); }), path + ": no tensor 'nope'");
}

TEST(GgufFile, TensorsHaveBothShapeOrdersTypesAndRanges) {
  const auto file = GgufFile::open(kFixtures + "tensors.gguf");
  std::vector<std::string> names;
  for (const auto& tensor : file->tensors()) names.push_back(tensor.name);
  EXPECT_EQ(names, (std::vector<std::string>{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q5_k", "q6_k", "three_d",
                                             "one_d"}));
  const auto& q4_k = file->tensor("q4_k");
  EXPECT_EQ(q4_k.ne, (std::vector<uint64_t>{512, 3}));
  EXPECT_EQ(q4_k.shape, (std::vector<int64_t>{3, 512}));
  EXPECT_EQ(q4_k.type, GgmlType::Q4_K);
  EXPECT_STREQ(q4_k.type_name(), "Q4_K");
  EXPECT_EQ(q4_k.element_count, 1536u);
  EXPECT_EQ(q4_k.byte_size, 6u * 144);
  EXPECT_EQ(file->tensor("q6_k").byte_size, 6u * 210);
  EXPECT_EQ(file->tensor("q8_0").byte_size, 8u * 34);
  EXPECT_EQ(file->tensor("bf16").byte_size, 96u * 2);
  EXPECT_EQ(file->tensor("three_d").ne, (std::vector<uint64_t>{4, 3, 2}));
  EXPECT_EQ(file->tensor("three_d").shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(file->tensor("one_d").shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(file->alignment(), 32u);
  EXPECT_EQ(file->data_offset() % 32, 0u);
  for (const auto& tensor : file->tensors()) {
    EXPECT_EQ(tensor.offset % 32, 0u) << tensor.name;
    EXPECT_LE(file->data_offset() + tensor.offset + tensor.byte_size, file->file_size()) << tensor.name;
  }
  EXPECT_NO_THROW(file->require_all_dequantisable());
}

TEST(GgufFile, CustomAlignmentPlacesTheDataSection) {
  const auto file = GgufFile::open(kFixtures + "metadata.gguf");
  EXPECT_EQ(file->alignment(), 64u);
  EXPECT_EQ(file->data_offset() % 64, 0u);
  EXPECT_EQ(file->dequantised("bias"), (std::vector<float>{0, 1, 2}));
}

TEST(GgufFile, VersionTwoReadsAsThree) {
  Scratch scratch;
  auto bytes = read_bytes(kFixtures + "tensors.gguf");
  bytes[4] = 2;
  const auto file = GgufFile::open(scratch.write("v2.gguf", bytes));
  EXPECT_EQ(file->version(), 2u);
  EXPECT_EQ(file->dequantised("q4_k"), GgufFile::open(kFixtures + "tensors.gguf")->dequantised("q4_k"));
}

TEST(GgufFile, QuantisationSummaryNamesTheFileType) {
  EXPECT_EQ(gguf_quantisation_summary(*GgufFile::open(kFixtures + "tensors.gguf")),
            "Q4_K_M (F32 3 tensors, BF16 1, F16 1, Q4_0 1, Q4_K 1, Q5_K 1, Q6_K 1, Q8_0 1)");
  // No general.file_type: the most common type of the 2-D tensors (a tie goes to the first name).
  EXPECT_EQ(gguf_quantisation_summary(*GgufFile::open(kFixtures + "unsupported.gguf")),
            "mostly F32 (F32 1 tensor, Q3_K 1)");
  Scratch scratch;
  EXPECT_EQ(gguf_quantisation_summary(*GgufFile::open(scratch.write("none.gguf", gguf(0, 0, ""))) ), "no tensors");
}

TEST(GgufFile, UnsupportedTypeIsRefusedByName) {
  const auto path = kFixtures + "unsupported.gguf";
  const auto file = GgufFile::open(path);  // listing it is fine
  EXPECT_STREQ(file->tensor("blk.0.attn_q.weight").type_name(), "Q3_K");
  const auto refusal = path + ": tensor 'blk.0.attn_q.weight' is Q3_K; " + kSupported;
  EXPECT_EQ(error_of([&] { file->require_all_dequantisable(); }), refusal);
  EXPECT_EQ(error_of([&] { file->dequantised("blk.0.attn_q.weight"); }), refusal);
  EXPECT_EQ(file->dequantised("token_embd.weight").size(), 64u);
}

TEST(GgufFile, NotAGgufFile) {
  Scratch scratch;
  const auto missing = scratch.path() + "/missing.gguf";
  EXPECT_EQ(open_error(missing), missing + ": cannot open: No such file or directory");
  EXPECT_EQ(open_error(scratch.path()), scratch.path() + ": is a directory, not a GGUF file");
  const auto empty = scratch.write("empty.gguf", "");
  EXPECT_EQ(open_error(empty), empty + ": is empty, not a GGUF file");
  const auto zip = scratch.write("zip.gguf", std::string("PK\x03\x04", 4) + std::string(40, '\0'));
  EXPECT_EQ(open_error(zip), zip + ": does not start with GGUF's magic 'GGUF' (found 'PK\\x03\\x04'): not a GGUF file");
}

TEST(GgufFile, UnsupportedVersions) {
  Scratch scratch;
  auto bytes = read_bytes(kFixtures + "tensors.gguf");
  bytes[4] = 1;
  const auto v1 = scratch.write("v1.gguf", bytes);
  EXPECT_EQ(open_error(v1), v1 + ": GGUF version 1 is not supported (versions 2 and 3 are)");
  bytes[4] = 0;
  bytes[7] = 3;
  const auto big = scratch.write("big.gguf", bytes);
  EXPECT_EQ(open_error(big), big + ": is a big-endian GGUF file (version 3); only little-endian files are supported");
}

TEST(GgufFile, TruncatedAnywhereSaysWhere) {
  Scratch scratch;
  const auto good = read_bytes(kFixtures + "tensors.gguf");
  const auto header = scratch.write("header.gguf", good.substr(0, 10));
  EXPECT_EQ(open_error(header), header + ": truncated: the header needs 24 bytes, the file has 10");
  // The first entry's key is general.architecture: 24 + 8 + 20 bytes, then its value type, its length, "llama".
  const auto value_type = scratch.write("type.gguf", good.substr(0, 54));
  EXPECT_EQ(open_error(value_type), value_type + ": truncated: metadata key 'general.architecture' (value type) needs 4 "
                                                 "bytes at offset 52, the file has 54");
  const auto length = scratch.write("length.gguf", good.substr(0, 60));
  EXPECT_EQ(open_error(length), length + ": truncated: metadata key 'general.architecture' (string) needs 8 bytes at "
                                         "offset 56, the file has 60");
  const auto text = scratch.write("text.gguf", good.substr(0, 66));
  EXPECT_EQ(open_error(text), text + ": metadata key 'general.architecture': string of 5 bytes is longer than the 2 "
                                     "bytes left in the file");
  // A tensor info cut inside its ne.
  const auto info = gguf(1, 0, tensor_info("w", {32, 2}, 0, 0).bytes).substr(0, 24 + 9 + 4 + 12);
  const auto info_path = scratch.write("info.gguf", info);
  EXPECT_EQ(open_error(info_path), info_path + ": truncated: tensor 'w' (ne) needs 8 bytes at offset 45, the file has 49");
  // The data of the last tensor cut short.
  const auto file = GgufFile::open(kFixtures + "tensors.gguf");
  const auto& last = file->tensor("one_d");
  const auto end = file->data_offset() + last.offset + last.byte_size;
  const auto data = scratch.write("data.gguf", good.substr(0, end - 1));
  EXPECT_EQ(open_error(data), data + ": truncated: tensor 'one_d' (F32, 20 bytes at data offset " +
                                  std::to_string(last.offset) + ") ends at byte " + std::to_string(end) +
                                  ", the file has " + std::to_string(end - 1));
}

TEST(GgufFile, AbsurdCountsAndLengths) {
  Scratch scratch;
  // Counts the file cannot hold end where its bytes do, naming the count.
  const auto header = [](uint64_t tensors, uint64_t entries) {
    return Fields().raw("GGUF", 4).u32(3).u64(tensors).u64(entries).bytes;
  };
  const auto tensors = scratch.write("tensors.gguf", header(uint64_t{1} << 40, 0));
  EXPECT_EQ(open_error(tensors), tensors + ": truncated: tensor info 0 of 1099511627776 (name) needs 8 bytes at offset 24, "
                                           "the file has 24");
  const auto entries = scratch.write("entries.gguf", header(0, 1000) + Fields().str("k").u32(0).raw("\1", 1).bytes);
  EXPECT_EQ(open_error(entries), entries + ": truncated: metadata entry 1 of 1000 (key) needs 8 bytes at offset 38, "
                                           "the file has 38");
  const auto key = scratch.write("key.gguf", gguf(0, 1, Fields().u64(uint64_t{1} << 63).u32(0).bytes));
  EXPECT_EQ(open_error(key), key + ": metadata entry 0 of 1: key of 9223372036854775808 bytes is longer than the 32 bytes left "
                                   "in the file");
  const auto array = scratch.write("array.gguf", gguf(0, 1, Fields().str("a").u32(9).u32(4).u64(1000000).bytes));
  EXPECT_EQ(open_error(array), array + ": metadata key 'a': an array of 1000000 uint32 needs 4000000 bytes; the file has "
                                       "15 left");
  const auto strings = scratch.write("strings.gguf", gguf(0, 1, Fields().str("s").u32(9).u32(8).u64(~uint64_t{0}).bytes));
  EXPECT_EQ(open_error(strings), strings + ": metadata key 's': an array of 18446744073709551615 string needs more than "
                                           "2^63 bytes; the file has 15 left");
  const auto few = scratch.write("few.gguf", gguf(0, 1, Fields().str("s").u32(9).u32(8).u64(3).bytes));
  EXPECT_EQ(open_error(few), few + ": metadata key 's': an array of 3 string needs at least 24 bytes; the file has 15 left");
}

TEST(GgufFile, BadMetadataValues) {
  Scratch scratch;
  const auto twice = scratch.write("twice.gguf", one_tensor_file(2, Fields().str("k").u32(0).raw("\1", 1).str("k").u32(0).raw("\2", 1).bytes));
  EXPECT_EQ(open_error(twice), twice + ": metadata key 'k' appears twice");
  const auto type = scratch.write("type.gguf", one_tensor_file(1, Fields().str("k").u32(13).bytes));
  EXPECT_EQ(open_error(type), type + ": metadata key 'k' has unknown value type 13");
  const auto nested = scratch.write("nested.gguf", one_tensor_file(1, Fields().str("k").u32(9).u32(9).u64(0).bytes));
  EXPECT_EQ(open_error(nested), nested + ": metadata key 'k' is an array of arrays, which this reader does not accept");
  const auto flag = scratch.write("bool.gguf", one_tensor_file(1, Fields().str("k").u32(7).raw("\2", 1).bytes));
  EXPECT_EQ(open_error(flag), flag + ": metadata key 'k': a bool holds the byte 2, neither 0 nor 1");
  const auto odd = scratch.write("odd.gguf", one_tensor_file(1, Fields().str("general.alignment").u32(4).u32(48).bytes));
  EXPECT_EQ(open_error(odd), odd + ": general.alignment is 48; it must be a power of two");
  const auto text = scratch.write("text.gguf", one_tensor_file(1, Fields().str("general.alignment").u32(8).str("32").bytes));
  EXPECT_EQ(open_error(text), text + ": metadata key 'general.alignment' is string, not a uint32");
}

TEST(GgufFile, BadTensorInfos) {
  Scratch scratch;
  const auto check = [&](const std::string& name, const std::string& bytes, const std::string& message) {
    const auto path = scratch.write(name, bytes);
    EXPECT_EQ(open_error(path), path + ": " + message);
  };
  const auto info = [](const std::vector<uint64_t>& ne, uint32_t type, uint64_t offset = 0) {
    return tensor_info("w", ne, type, offset).bytes;
  };
  check("dims.gguf", gguf(1, 0, info({1, 1, 1, 1, 32}, 0), 128), "tensor 'w' has 5 dimensions; GGUF allows at most 4");
  check("zero.gguf", gguf(1, 0, info({32, 0}, 0), 128), "tensor 'w' has ne [32, 0], with a dimension of 0");
  check("wrap.gguf", gguf(1, 0, info({uint64_t{1} << 32, uint64_t{1} << 32}, 0)),
        "tensor 'w' has ne [4294967296, 4294967296], whose element count overflows 64 bits");
  check("int64.gguf", gguf(1, 0, info({uint64_t{1} << 32, uint64_t{1} << 31}, 0)),
        "tensor 'w' has ne [4294967296, 2147483648], whose element count overflows 64 bits");
  check("bytes.gguf", gguf(1, 0, info({uint64_t{1} << 31, uint64_t{1} << 31}, 0)),
        "tensor 'w' has ne [2147483648, 2147483648], whose size in bytes overflows 64 bits");
  check("row.gguf", gguf(1, 0, info({100, 2}, 12), 144),
        "tensor 'w' is Q4_K with rows of 100 values (ne [100, 2]), not a multiple of its 256-value block");
  check("unknown.gguf", gguf(1, 0, info({32}, 99), 128), "tensor 'w' has unknown ggml type 99");
  check("retired.gguf", gguf(1, 0, info({32}, 31), 128), "tensor 'w' has ggml type 31 (Q4_0_4_4), which GGUF files no longer use");
  check("aligned.gguf", gguf(1, 0, info({32}, 0, 16), 160), "tensor 'w' has offset 16, not a multiple of the alignment 32");
  check("twice.gguf", gguf(2, 0, info({32}, 0) + info({32}, 0, 128), 256), "tensor name 'w' appears twice");
  check("overlap.gguf",
        gguf(2, 0, tensor_info("a", {64}, 0, 0).bytes + tensor_info("b", {32}, 0, 128).bytes, 512),
        "tensors 'a' (bytes 0–256) and 'b' (bytes 128–256) of the data section overlap");
  check("end.gguf", gguf(1, 0, info({32}, 0, 64), 128),
        "truncated: tensor 'w' (F32, 128 bytes at data offset 64) ends at byte 256, the file has 192");
  check("beyond.gguf", gguf(1, 0, info({32}, 0, ~uint64_t{0} - 31), 128),
        "truncated: tensor 'w' (F32, 128 bytes at data offset 18446744073709551584) ends at byte beyond 2^64, the file has 192");
}

}  // namespace
}  // namespace aw
