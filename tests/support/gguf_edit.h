// tests/support/gguf_edit.h — a GGUF file read with GgufFile and written back with changes, so that a test
// can make one key, tensor or token of a good fixture wrong and expect that one line. Metadata keeps its
// order; tensors are written at general.alignment (32) as the gguf package writes them.
#pragma once

#include "models/checkpoint/gguf_file.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace aw::test {

struct GgufEdit {
  struct Tensor {
    std::string name;
    std::vector<uint64_t> ne;  // GGUF order
    uint32_t type = 0;
    std::string bytes;
  };
  std::vector<std::pair<std::string, GgufValue>> metadata;
  std::vector<Tensor> tensors;

  static GgufEdit read(const std::string& path) {
    const auto file = GgufFile::open(path);
    GgufEdit edit;
    for (const auto& key : file->keys()) edit.metadata.emplace_back(key, file->value(key));
    for (const auto& tensor : file->tensors()) {
      const auto* bytes = reinterpret_cast<const char*>(file->tensor_bytes(tensor));
      edit.tensors.push_back({tensor.name, tensor.ne, static_cast<uint32_t>(tensor.type), std::string(bytes, tensor.byte_size)});
    }
    return edit;
  }

  GgufValue* find(const std::string& key) {
    for (auto& [name, value] : metadata)
      if (name == key) return &value;
    return nullptr;
  }
  void set(const std::string& key, GgufValue value) {
    if (auto* found = find(key)) *found = std::move(value);
    else metadata.emplace_back(key, std::move(value));
  }
  void erase(const std::string& key) {
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
      if (it->first == key) return void(metadata.erase(it));
    throw std::invalid_argument("no key " + key);
  }
  Tensor& tensor(const std::string& name) {
    for (auto& tensor : tensors)
      if (tensor.name == name) return tensor;
    throw std::invalid_argument("no tensor " + name);
  }
  void drop(const std::string& name) {
    for (auto it = tensors.begin(); it != tensors.end(); ++it)
      if (it->name == name) return void(tensors.erase(it));
    throw std::invalid_argument("no tensor " + name);
  }

  static GgufValue text(const std::string& value) { return scalar(GgufValueType::String, {}, {}, {value}); }
  static GgufValue uint32(uint64_t value) { return scalar(GgufValueType::UInt32, {value}, {}, {}); }
  static GgufValue float32(double value) { return scalar(GgufValueType::Float32, {}, {value}, {}); }
  static GgufValue boolean(bool value) { return scalar(GgufValueType::Bool, {value ? 1u : 0u}, {}, {}); }
  static GgufValue booleans(const std::vector<bool>& values) {
    auto value = scalar(GgufValueType::Bool, {}, {}, {});
    for (const bool flag : values) value.integers.push_back(flag ? 1 : 0);
    value.type = GgufValueType::Array;
    return value;
  }
  static GgufValue texts(std::vector<std::string> values) {
    auto value = scalar(GgufValueType::String, {}, {}, std::move(values));
    value.type = GgufValueType::Array;
    return value;
  }

  void write(const std::string& path) const {
    std::string out = "GGUF";
    put<uint32_t>(out, 3);
    put<uint64_t>(out, tensors.size());
    put<uint64_t>(out, metadata.size());
    for (const auto& [key, value] : metadata) {
      put_string(out, key);
      put<uint32_t>(out, static_cast<uint32_t>(value.type));
      if (value.is_array()) {
        put<uint32_t>(out, static_cast<uint32_t>(value.element_type));
        put<uint64_t>(out, value.size());
      }
      for (size_t i = 0; i < value.size(); ++i) put_element(out, value, i);
    }
    constexpr uint64_t kAlignment = 32;
    const auto aligned = [&](uint64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; };
    uint64_t offset = 0;
    for (const auto& tensor : tensors) {
      put_string(out, tensor.name);
      put<uint32_t>(out, static_cast<uint32_t>(tensor.ne.size()));
      for (auto n : tensor.ne) put<uint64_t>(out, n);
      put<uint32_t>(out, tensor.type);
      put<uint64_t>(out, offset);
      offset = aligned(offset + tensor.bytes.size());
    }
    out.resize(aligned(out.size()), '\0');
    for (const auto& tensor : tensors) {
      out += tensor.bytes;
      out.resize(out.size() + (aligned(tensor.bytes.size()) - tensor.bytes.size()), '\0');
    }
    std::ofstream(path, std::ios::binary) << out;
  }

 private:
  static GgufValue scalar(GgufValueType type, std::vector<uint64_t> integers, std::vector<double> floats,
                          std::vector<std::string> strings) {
    GgufValue value;
    value.type = value.element_type = type;
    value.integers = std::move(integers);
    value.floats = std::move(floats);
    value.strings = std::move(strings);
    return value;
  }
  template <typename T>
  static void put(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
  }
  static void put_string(std::string& out, const std::string& text) {
    put<uint64_t>(out, text.size());
    out += text;
  }
  static void put_element(std::string& out, const GgufValue& value, size_t i) {
    switch (value.element_type) {
      case GgufValueType::UInt8: case GgufValueType::Int8: case GgufValueType::Bool:
        return put<uint8_t>(out, static_cast<uint8_t>(value.integers[i]));
      case GgufValueType::UInt16: case GgufValueType::Int16: return put<uint16_t>(out, static_cast<uint16_t>(value.integers[i]));
      case GgufValueType::UInt32: case GgufValueType::Int32: return put<uint32_t>(out, static_cast<uint32_t>(value.integers[i]));
      case GgufValueType::UInt64: case GgufValueType::Int64: return put<uint64_t>(out, value.integers[i]);
      case GgufValueType::Float32: return put<float>(out, static_cast<float>(value.floats[i]));
      case GgufValueType::Float64: return put<double>(out, value.floats[i]);
      case GgufValueType::String: return put_string(out, value.strings[i]);
      case GgufValueType::Array: break;
    }
    throw std::invalid_argument("an array of arrays");
  }
};

}  // namespace aw::test
