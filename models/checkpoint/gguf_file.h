// models/checkpoint/gguf_file.h — a GGUF file (llama.cpp's single-file model format, versions 2 and 3,
// little-endian) read and validated at open: its metadata, its tensors' names, shapes, types and byte
// ranges, and each tensor dequantised to float32 in PyTorch's row-major order. Plain C++ (no LibTorch):
// the model loader turns the floats into tensors.
//
// Layout: "GGUF", uint32 version, uint64 tensor count, uint64 metadata count; the metadata (string key,
// uint32 value type, value); the tensor infos (string name, uint32 n_dims, uint64 ne[n_dims], uint32 ggml
// type, uint64 offset into the data section); padding to general.alignment (default 32); the data
// section. Strings are a uint64 byte count and the bytes. ne[0] varies fastest, so a PyTorch [out, in]
// weight is stored with ne = {in, out}, and its blocks run along the rows.
//
// Every problem is an aw::Error of one line, "<path>: <what is wrong>", naming the key or the tensor.
#pragma once

#include "models/checkpoint/gguf_dequantise.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace aw {

enum class GgufValueType : uint32_t {
  UInt8 = 0, Int8 = 1, UInt16 = 2, Int16 = 3, UInt32 = 4, Int32 = 5, Float32 = 6, Bool = 7,
  String = 8, Array = 9, UInt64 = 10, Int64 = 11, Float64 = 12,
};
// "uint8", …, "float64", "bool", "string", "array".
const char* gguf_value_type_name(GgufValueType type);

// One metadata value: a scalar, or an array whose elements share one scalar type (arrays of arrays are
// refused). A scalar is held as an array of one, in the vector its kind uses.
struct GgufValue {
  GgufValueType type = GgufValueType::UInt8;
  GgufValueType element_type = GgufValueType::UInt8;  // an array's elements; the type itself for a scalar
  std::vector<uint64_t> integers;     // integer types and bool (0 or 1), signed ones sign-extended
  std::vector<double> floats;         // float32 and float64
  std::vector<std::string> strings;   // bytes as stored (GGUF says UTF-8; not checked)

  bool is_array() const { return type == GgufValueType::Array; }
  size_t size() const;                // elements (1 for a scalar)
  // "uint32", "string", "array of 32000 string".
  std::string type_description() const;
  // For listings: "'llama'", "22", "1e-05", "true", "[32000 string]".
  std::string summary() const;
};

struct GgufTensor {
  std::string name;
  std::vector<uint64_t> ne;     // GGUF order: ne[0] varies fastest
  std::vector<int64_t> shape;   // PyTorch (row-major) order: ne reversed
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;          // into the data section, as stored
  uint64_t element_count = 0;
  uint64_t byte_size = 0;
  const char* type_name() const { return ggml_type_traits(static_cast<uint32_t>(type))->name; }
};

class GgufFile {
 public:
  // Maps and validates the whole file (metadata and tensor infos; the tensor bytes are only range-checked).
  static std::unique_ptr<GgufFile> open(const std::string& path);
  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint64_t file_size() const { return file_size_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // the data section's first byte in the file

  // Metadata, in file order.
  const std::vector<std::string>& keys() const { return keys_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // Throws "<path>: no metadata key '<key>'".
  const GgufValue& value(const std::string& key) const;
  // Typed getters: a missing key or another type throws "<path>: metadata key '<key>' is uint32, not a string".
  std::string string_value(const std::string& key) const;
  int64_t integer_value(const std::string& key) const;    // any integer type whose value fits int64
  double float_value(const std::string& key) const;       // float32 or float64
  bool bool_value(const std::string& key) const;
  std::vector<std::string> string_array(const std::string& key) const;
  std::vector<int64_t> integer_array(const std::string& key) const;
  std::vector<double> float_array(const std::string& key) const;
  // general.architecture: "llama", "qwen2", "gemma2", …
  std::string architecture() const { return string_value("general.architecture"); }

  // Tensors, in file order.
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // Throws "<path>: no tensor '<name>'".
  const GgufTensor& tensor(const std::string& name) const;
  // The tensor's bytes in the mapped file (byte_size of them; no alignment beyond the file's).
  const uint8_t* tensor_bytes(const GgufTensor& tensor) const { return data_ + tensor.offset; }

  // Throws "<path>: tensor '<name>' is Q3_K; supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K"
  // for a type dequantise cannot read; the second form for the first such tensor of the file.
  void require_dequantisable(const GgufTensor& tensor) const;
  void require_all_dequantisable() const;
  // The tensor as element_count floats in PyTorch order (`out` must hold them). `threads` as
  // dequantise_blocks_parallel takes it.
  void dequantise(const std::string& name, float* out, unsigned threads = 0) const;
  std::vector<float> dequantised(const std::string& name, unsigned threads = 0) const;

 private:
  GgufFile() = default;
  std::string path_;
  uint32_t version_ = 0;
  uint64_t file_size_ = 0;
  uint32_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  const uint8_t* mapping_ = nullptr;
  const uint8_t* data_ = nullptr;
  std::vector<std::string> keys_;
  std::map<std::string, GgufValue> values_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, size_t> index_;
  friend class GgufParser;
};

// The file's quantisation in one line, for `info`:
//   "Q4_K_M (Q4_K 112 tensors, Q6_K 15, F32 45)"        general.file_type names it (llama.cpp's names)
//   "mostly Q8_0 (Q8_0 7 tensors, F32 6)"                 no (known) file type: the most common type among
//                                                         the tensors of two or more dimensions
// The counts cover every tensor, most common type first (ties by name). "no tensors" for none.
std::string gguf_quantisation_summary(const GgufFile& file);

}  // namespace aw
