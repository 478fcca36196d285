// models/checkpoint/gguf_file.cpp — the GGUF reader: the file is mapped read-only, parsed front to back
// by a bounds-checked cursor, and every count, length, shape and range is checked before it is used
// (a hostile file can neither read past the mapping nor make us reserve more than its own size).
#include "models/checkpoint/gguf_file.h"

#include "models/errors.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <tuple>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the GGUF reader assumes a little-endian host");

namespace aw {
namespace {

constexpr uint64_t kHeaderBytes = 24;          // magic, version, tensor count, metadata count
constexpr uint64_t kMinEntryBytes = 8 + 4 + 1; // empty key, value type, a one-byte value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, n_dims 0, type, offset
constexpr uint32_t kMaxDims = 4;               // GGML_MAX_DIMS
constexpr uint64_t kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// Bytes of one scalar of a type; 0 for string and array.
uint64_t scalar_bytes(GgufValueType type) {
  switch (type) {
    case GgufValueType::UInt8: case GgufValueType::Int8: case GgufValueType::Bool: return 1;
    case GgufValueType::UInt16: case GgufValueType::Int16: return 2;
    case GgufValueType::UInt32: case GgufValueType::Int32: case GgufValueType::Float32: return 4;
    case GgufValueType::UInt64: case GgufValueType::Int64: case GgufValueType::Float64: return 8;
    default: return 0;
  }
}

bool is_integer(GgufValueType type) {
  return scalar_bytes(type) != 0 && type != GgufValueType::Bool && type != GgufValueType::Float32 &&
         type != GgufValueType::Float64;
}
bool is_float(GgufValueType type) { return type == GgufValueType::Float32 || type == GgufValueType::Float64; }
bool is_signed(GgufValueType type) {
  return type == GgufValueType::Int8 || type == GgufValueType::Int16 || type == GgufValueType::Int32 ||
         type == GgufValueType::Int64;
}


}  // namespace

// Reads the file front to back; every read is checked against the end of the mapping.
class GgufParser {
 public:
  explicit GgufParser(GgufFile& file) : file_(file), bytes_(file.mapping_), size_(file.file_size_) {}

  void parse() {
    parse_header();
    parse_metadata();
    parse_alignment();
    parse_tensor_infos();
    place_data_section();
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { fail_in_file(file_.path_, message); }
  uint64_t left() const { return size_ - position_; }

  // `where` says what is being read ("metadata key 'general.name'"), `part` which field of it.
  const uint8_t* take(uint64_t count, const std::string& where, const char* part) {
    if (count > left())
      fail("truncated: " + where + " (" + part + ") needs " + std::to_string(count) + " bytes at offset " +
           std::to_string(position_) + ", the file has " + std::to_string(size_));
    const uint8_t* at = bytes_ + position_;
    position_ += count;
    return at;
  }
  template <typename T>
  T read(const std::string& where, const char* part) {
    T value;
    std::memcpy(&value, take(sizeof(T), where, part), sizeof(T));
    return value;
  }
  std::string read_string(const std::string& where, const char* part) {
    const auto length = read<uint64_t>(where, part);
    if (length > left())
      fail(where + ": " + part + " of " + std::to_string(length) + " bytes is longer than the " +
           std::to_string(left()) + " bytes left in the file");
    const auto* at = take(length, where, part);
    return std::string(reinterpret_cast<const char*>(at), length);
  }

  void parse_header() {
    if (size_ >= 4 && std::memcmp(bytes_, "GGUF", 4) != 0)
      fail("does not start with GGUF's magic 'GGUF' (found " +
           quoted_excerpt(std::string(reinterpret_cast<const char*>(bytes_), 4)) + "): not a GGUF file");
    if (size_ < kHeaderBytes)
      fail("truncated: the header needs " + std::to_string(kHeaderBytes) + " bytes, the file has " +
           std::to_string(size_));
    position_ = 4;
    const auto version = read<uint32_t>("the header", "version");
    if (version != 2 && version != 3) {
      if ((version & 0xFFFF) == 0 && (__builtin_bswap32(version) == 2 || __builtin_bswap32(version) == 3))
        fail("is a big-endian GGUF file (version " + std::to_string(__builtin_bswap32(version)) +
             "); only little-endian files are supported");
      fail("GGUF version " + std::to_string(version) + " is not supported (versions 2 and 3 are)");
    }
    file_.version_ = version;
    tensor_count_ = read<uint64_t>("the header", "tensor count");
    entry_count_ = read<uint64_t>("the header", "metadata count");
  }

  void parse_metadata() {
    // Each entry takes some bytes: a count the file cannot hold reserves no more than it could, and
    // ends in "truncated: metadata entry 7 of 1000000 (key) …".
    file_.keys_.reserve(std::min(entry_count_, left() / kMinEntryBytes));
    for (uint64_t entry = 0; entry < entry_count_; ++entry) {
      auto key = read_string("metadata entry " + std::to_string(entry) + " of " + std::to_string(entry_count_), "key");
      const auto where = "metadata key " + quoted_excerpt(key);
      if (file_.values_.count(key)) fail(where + " appears twice");
      GgufValue value;
      value.type = read_type(where, "value type");
      if (value.type == GgufValueType::Array) {
        value.element_type = read_type(where, "array element type");
        if (value.element_type == GgufValueType::Array)
          fail(where + " is an array of arrays, which this reader does not accept");
        const auto count = read<uint64_t>(where, "array length");
        const auto each = value.element_type == GgufValueType::String ? 8 : scalar_bytes(value.element_type);
        if (count > left() / each) {
          const bool strings = value.element_type == GgufValueType::String;  // each at least its 8-byte length
          fail(where + ": an array of " + std::to_string(count) + " " + gguf_value_type_name(value.element_type) +
               " needs " + (count > kMaxInt64 / each ? "more than 2^63" : (strings ? "at least " : "") + std::to_string(count * each)) +
               " bytes; the file has " + std::to_string(left()) + " left");
        }
        read_elements(value, count, where);
      } else {
        value.element_type = value.type;
        read_elements(value, 1, where);
      }
      file_.keys_.push_back(key);
      file_.values_.emplace(std::move(key), std::move(value));
    }
  }

  GgufValueType read_type(const std::string& where, const char* part) {
    const auto id = read<uint32_t>(where, part);
    if (id > static_cast<uint32_t>(GgufValueType::Float64))
      fail(where + " has unknown " + part + " " + std::to_string(id));
    return static_cast<GgufValueType>(id);
  }

  void read_elements(GgufValue& value, uint64_t count, const std::string& where) {
    const auto type = value.element_type;
    if (type == GgufValueType::String) {
      value.strings.reserve(count);
      for (uint64_t i = 0; i < count; ++i) value.strings.push_back(read_string(where, "string"));
      return;
    }
    const auto bytes = scalar_bytes(type);
    const uint8_t* at = take(count * bytes, where, "value");  // count · bytes ≤ left(), checked by the caller
    if (is_float(type)) {
      value.floats.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        if (type == GgufValueType::Float32) {
          float number;
          std::memcpy(&number, at + 4 * i, 4);
          value.floats[i] = number;
        } else {
          std::memcpy(&value.floats[i], at + 8 * i, 8);
        }
      }
      return;
    }
    value.integers.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, at + bytes * i, bytes);
      if (is_signed(type) && bytes < 8 && (bits >> (8 * bytes - 1)) != 0) bits |= ~uint64_t{0} << (8 * bytes);
      if (type == GgufValueType::Bool && bits > 1)
        fail(where + ": a bool holds the byte " + std::to_string(bits) + ", neither 0 nor 1");
      value.integers[i] = bits;
    }
  }

  void parse_alignment() {
    if (!file_.has("general.alignment")) return;
    const auto& value = file_.values_.at("general.alignment");
    if (value.type != GgufValueType::UInt32)
      fail("metadata key 'general.alignment' is " + value.type_description() + ", not a uint32");
    const auto alignment = value.integers[0];
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
      fail("general.alignment is " + std::to_string(alignment) + "; it must be a power of two");
    file_.alignment_ = static_cast<uint32_t>(alignment);
  }

  void parse_tensor_infos() {
    file_.tensors_.reserve(std::min(tensor_count_, left() / kMinTensorInfoBytes));  // as for the entries
    for (uint64_t index = 0; index < tensor_count_; ++index) {
      GgufTensor tensor;
      tensor.name = read_string("tensor info " + std::to_string(index) + " of " + std::to_string(tensor_count_), "name");
      const auto where = "tensor " + quoted_excerpt(tensor.name);
      const auto n_dims = read<uint32_t>(where, "n_dims");
      if (n_dims > kMaxDims)
        fail(where + " has " + std::to_string(n_dims) + " dimensions; GGUF allows at most " + std::to_string(kMaxDims));
      for (uint32_t d = 0; d < n_dims; ++d) tensor.ne.push_back(read<uint64_t>(where, "ne"));
      const auto type_id = read<uint32_t>(where, "type");
      tensor.offset = read<uint64_t>(where, "offset");
      const auto* traits = ggml_type_traits(type_id);
      if (traits == nullptr) {
        const auto retired = ggml_type_name(type_id);
        if (!retired.empty())
          fail(where + " has ggml type " + std::to_string(type_id) + " (" + retired + "), which GGUF files no longer use");
        fail(where + " has unknown ggml type " + std::to_string(type_id));
      }
      tensor.type = traits->type;
      size_tensor(tensor, *traits, where);
      if (file_.index_.count(tensor.name)) fail("tensor name " + quoted_excerpt(tensor.name) + " appears twice");
      file_.index_.emplace(tensor.name, file_.tensors_.size());
      file_.tensors_.push_back(std::move(tensor));
    }
  }

  // Element count and bytes, with no silent wrap-around; both must fit int64 (PyTorch's sizes).
  void size_tensor(GgufTensor& tensor, const GgmlTypeTraits& traits, const std::string& where) {
    const auto ne = shape_string(tensor.ne);
    uint64_t count = 1;
    for (const auto dim : tensor.ne) {
      if (dim == 0) fail(where + " has ne " + ne + ", with a dimension of 0");
      if (__builtin_mul_overflow(count, dim, &count) || count > kMaxInt64)
        fail(where + " has ne " + ne + ", whose element count overflows 64 bits");
    }
    const uint64_t row = tensor.ne.empty() ? 1 : tensor.ne[0];
    if (row % traits.block_elements != 0)
      fail(where + " is " + traits.name + " with rows of " + std::to_string(row) + " values (ne " + ne +
           "), not a multiple of its " + std::to_string(traits.block_elements) + "-value block");
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(count / traits.block_elements, uint64_t{traits.block_bytes}, &bytes) || bytes > kMaxInt64)
      fail(where + " has ne " + ne + ", whose size in bytes overflows 64 bits");
    tensor.element_count = count;
    tensor.byte_size = bytes;
    tensor.shape.assign(tensor.ne.rbegin(), tensor.ne.rend());
  }

  // The data section starts at the next multiple of the alignment; every tensor lies inside the file,
  // at an aligned offset, and shares no byte with another.
  void place_data_section() {
    const uint64_t alignment = file_.alignment_;
    const uint64_t end_of_infos = position_;
    file_.data_offset_ = end_of_infos + (alignment - end_of_infos % alignment) % alignment;
    file_.data_ = bytes_ + std::min(file_.data_offset_, size_);
    const uint64_t data_bytes = size_ - std::min(file_.data_offset_, size_);
    for (const auto& tensor : file_.tensors_) {
      const auto where = "tensor " + quoted_excerpt(tensor.name);
      if (tensor.offset % alignment != 0)
        fail(where + " has offset " + std::to_string(tensor.offset) + ", not a multiple of the alignment " +
             std::to_string(alignment));
      if (tensor.offset > data_bytes || tensor.byte_size > data_bytes - tensor.offset) {
        uint64_t end = 0;
        const bool wraps = __builtin_add_overflow(file_.data_offset_, tensor.offset, &end) ||
                           __builtin_add_overflow(end, tensor.byte_size, &end);
        fail("truncated: " + where + " (" + tensor.type_name() + ", " + std::to_string(tensor.byte_size) +
             " bytes at data offset " + std::to_string(tensor.offset) + ") ends at byte " +
             (wraps ? std::string("beyond 2^64") : std::to_string(end)) + ", the file has " + std::to_string(size_));
      }
    }
    std::vector<const GgufTensor*> by_offset;
    for (const auto& tensor : file_.tensors_) by_offset.push_back(&tensor);
    std::sort(by_offset.begin(), by_offset.end(), [](const GgufTensor* a, const GgufTensor* b) {
      return std::tie(a->offset, a->name) < std::tie(b->offset, b->name);
    });
    const GgufTensor* furthest = nullptr;  // the range seen so far that reaches furthest
    for (const auto* tensor : by_offset) {
      if (furthest != nullptr && tensor->offset < furthest->offset + furthest->byte_size) {
        const auto range = [](const GgufTensor* t) {
          return "(bytes " + std::to_string(t->offset) + "–" + std::to_string(t->offset + t->byte_size) + ")";
        };
        fail("tensors " + quoted_excerpt(furthest->name) + " " + range(furthest) + " and " + quoted_excerpt(tensor->name) +
             " " + range(tensor) + " of the data section overlap");
      }
      if (furthest == nullptr || tensor->offset + tensor->byte_size > furthest->offset + furthest->byte_size)
        furthest = tensor;
    }
  }

  GgufFile& file_;
  const uint8_t* bytes_;
  uint64_t size_;
  uint64_t position_ = 0;
  uint64_t tensor_count_ = 0;
  uint64_t entry_count_ = 0;
};

std::unique_ptr<GgufFile> GgufFile::open(const std::string& path) {
  // O_NONBLOCK so that a FIFO does not hang us; it changes nothing for regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail_in_file(path, "cannot open: " + system_error());
  struct stat info {};
  const bool stat_ok = ::fstat(fd, &info) == 0;
  const auto stat_error = system_error();
  if (!stat_ok || !S_ISREG(info.st_mode)) {
    ::close(fd);
    if (!stat_ok) fail_in_file(path, "cannot open: " + stat_error);
    fail_in_file(path, S_ISDIR(info.st_mode) ? "is a directory, not a GGUF file" : "is not a regular file");
  }
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->path_ = path;
  file->file_size_ = static_cast<uint64_t>(info.st_size);
  if (file->file_size_ == 0) {
    ::close(fd);
    fail_in_file(path, "is empty, not a GGUF file");
  }
  void* mapping = ::mmap(nullptr, file->file_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const auto map_error = system_error();
  ::close(fd);  // the mapping keeps its own reference to the file
  if (mapping == MAP_FAILED) fail_in_file(path, "cannot map into memory: " + map_error);
  file->mapping_ = static_cast<const uint8_t*>(mapping);  // owned from here on: unmapped by the destructor
  GgufParser(*file).parse();
  return file;
}

GgufFile::~GgufFile() {
  if (mapping_ != nullptr) ::munmap(const_cast<uint8_t*>(mapping_), file_size_);
}

const char* gguf_value_type_name(GgufValueType type) {
  static const char* const kNames[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                       "bool", "string", "array", "uint64", "int64", "float64"};
  const auto id = static_cast<uint32_t>(type);
  return id < std::size(kNames) ? kNames[id] : "unknown";
}

size_t GgufValue::size() const {
  if (element_type == GgufValueType::String) return strings.size();
  return is_float(element_type) ? floats.size() : integers.size();
}

std::string GgufValue::type_description() const {
  if (!is_array()) return gguf_value_type_name(type);
  return "array of " + std::to_string(size()) + " " + gguf_value_type_name(element_type);
}

std::string GgufValue::summary() const {
  if (is_array()) return "[" + std::to_string(size()) + " " + gguf_value_type_name(element_type) + "]";
  if (type == GgufValueType::String) return quoted_excerpt(strings[0]);
  if (type == GgufValueType::Bool) return integers[0] ? "true" : "false";
  if (is_float(type)) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", floats[0]);
    return text;
  }
  return is_signed(type) ? std::to_string(static_cast<int64_t>(integers[0])) : std::to_string(integers[0]);
}

const GgufValue& GgufFile::value(const std::string& key) const {
  const auto found = values_.find(key);
  if (found == values_.end()) fail_in_file(path_, "no metadata key " + quoted_excerpt(key));
  return found->second;
}

namespace {

// The value under `key` when `accepts` its (element) type, else the one-line refusal.
template <typename Accepts>
const GgufValue& typed(const GgufFile& file, const std::string& key, bool array, Accepts accepts,
                       const char* wanted) {
  const auto& value = file.value(key);
  if (value.is_array() != array || !accepts(value.element_type))
    fail_in_file(file.path(), "metadata key " + quoted_excerpt(key) + " is " + value.type_description() + ", not " + wanted);
  return value;
}

int64_t as_int64(const GgufFile& file, const std::string& key, const GgufValue& value, uint64_t bits) {
  if (!is_signed(value.element_type) && bits > kMaxInt64)
    fail_in_file(file.path(), "metadata key " + quoted_excerpt(key) + " holds " + std::to_string(bits) +
                                  ", more than an int64 holds");
  return static_cast<int64_t>(bits);
}

bool is_string(GgufValueType type) { return type == GgufValueType::String; }
bool is_bool(GgufValueType type) { return type == GgufValueType::Bool; }

}  // namespace

std::string GgufFile::string_value(const std::string& key) const {
  return typed(*this, key, false, is_string, "a string").strings[0];
}

int64_t GgufFile::integer_value(const std::string& key) const {
  const auto& value = typed(*this, key, false, is_integer, "an integer");
  return as_int64(*this, key, value, value.integers[0]);
}

double GgufFile::float_value(const std::string& key) const {
  return typed(*this, key, false, is_float, "a float").floats[0];
}

bool GgufFile::bool_value(const std::string& key) const {
  return typed(*this, key, false, is_bool, "a bool").integers[0] != 0;
}

std::vector<std::string> GgufFile::string_array(const std::string& key) const {
  return typed(*this, key, true, is_string, "an array of strings").strings;
}

std::vector<int64_t> GgufFile::integer_array(const std::string& key) const {
  const auto& value = typed(*this, key, true, is_integer, "an array of integers");
  std::vector<int64_t> numbers;
  numbers.reserve(value.integers.size());
  for (const auto bits : value.integers) numbers.push_back(as_int64(*this, key, value, bits));
  return numbers;
}

std::vector<double> GgufFile::float_array(const std::string& key) const {
  return typed(*this, key, true, is_float, "an array of floats").floats;
}

const GgufTensor& GgufFile::tensor(const std::string& name) const {
  const auto found = index_.find(name);
  if (found == index_.end()) fail_in_file(path_, "no tensor " + quoted_excerpt(name));
  return tensors_[found->second];
}

void GgufFile::require_dequantisable(const GgufTensor& tensor) const {
  if (!can_dequantise(tensor.type))
    fail_in_file(path_, "tensor " + quoted_excerpt(tensor.name) + " is " + tensor.type_name() + "; supported: " +
                            dequantisable_type_names());
}

void GgufFile::require_all_dequantisable() const {
  for (const auto& tensor : tensors_) require_dequantisable(tensor);
}

void GgufFile::dequantise(const std::string& name, float* out, unsigned threads) const {
  const auto& info = tensor(name);
  require_dequantisable(info);
  // GGUF's ne[0]-fastest order is PyTorch's row-major order of the reversed shape: no reordering.
  dequantise_blocks_parallel(info.type, tensor_bytes(info), info.element_count, out, threads);
}

std::vector<float> GgufFile::dequantised(const std::string& name, unsigned threads) const {
  const auto& info = tensor(name);
  require_dequantisable(info);
  std::vector<float> values(info.element_count);
  dequantise(name, values.data(), threads);
  return values;
}

std::string gguf_quantisation_summary(const GgufFile& file) {
  if (file.tensors().empty()) return "no tensors";
  std::map<std::string, size_t> all, matrices;
  for (const auto& tensor : file.tensors()) {
    ++all[tensor.type_name()];
    if (tensor.ne.size() >= 2) ++matrices[tensor.type_name()];
  }
  const auto by_count = [](const std::map<std::string, size_t>& counts) {
    std::vector<std::pair<std::string, size_t>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return sorted;
  };
  const auto counted = by_count(all);
  std::string counts;
  for (size_t i = 0; i < counted.size(); ++i)
    counts += (i ? ", " : "") + counted[i].first + " " + std::to_string(counted[i].second) +
              (i ? "" : counted[i].second == 1 ? " tensor" : " tensors");

  // llama.cpp's llama_ftype names, by the value of general.file_type.
  static const std::map<int64_t, const char*> kFileTypes = {
      {0, "F32"}, {1, "F16"}, {2, "Q4_0"}, {3, "Q4_1"}, {7, "Q8_0"}, {8, "Q5_0"}, {9, "Q5_1"},
      {10, "Q2_K"}, {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"}, {15, "Q4_K_M"},
      {16, "Q5_K_S"}, {17, "Q5_K_M"}, {18, "Q6_K"}, {19, "IQ2_XXS"}, {20, "IQ2_XS"}, {21, "Q2_K_S"},
      {22, "IQ3_XS"}, {23, "IQ3_XXS"}, {24, "IQ1_S"}, {25, "IQ4_NL"}, {26, "IQ3_S"}, {27, "IQ3_M"},
      {28, "IQ2_S"}, {29, "IQ2_M"}, {30, "IQ4_XS"}, {31, "IQ1_M"}, {32, "BF16"}, {36, "TQ1_0"},
      {37, "TQ2_0"}, {38, "MXFP4_MOE"}, {39, "NVFP4"}, {40, "Q1_0"}};
  if (file.has("general.file_type")) {
    const auto& value = file.value("general.file_type");
    if (!value.is_array() && is_integer(value.type) && value.integers[0] <= kMaxInt64) {
      const auto known = kFileTypes.find(static_cast<int64_t>(value.integers[0]));
      if (known != kFileTypes.end()) return std::string(known->second) + " (" + counts + ")";
    }
  }
  const auto ranked = matrices.empty() ? counted : by_count(matrices);
  return "mostly " + ranked.front().first + " (" + counts + ")";
}

}  // namespace aw
