// fuzz/fuzz_gguf.cpp — a GGUF file (models/checkpoint/gguf_file.h): header, metadata of every value type,
// tensor infos, alignment and ranges; every metadata value is read through each typed getter, and every
// tensor the reader accepts is dequantised (a refused type is fine, a crash or a wrong size is not). Then the
// file opened as a model (models/checkpoint/gguf_model.h): config, tokenizer and weights from it, or one line.
#include "fuzz/fuzz_support.h"

#include "models/checkpoint/gguf_file.h"
#include "models/checkpoint/gguf_model.h"
#include "models/errors.h"

#include <cstdlib>

namespace {

// Runs a getter that may refuse the key's type; only aw::Error is a refusal.
template <typename Getter>
void try_getter(Getter&& getter) {
  try {
    getter();
  } catch (const aw::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("model.gguf", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto file = aw::GgufFile::open(path);
    volatile size_t sink = 0;
    for (const auto& key : file->keys()) {
      sink = sink + file->value(key).summary().size();
      try_getter([&] { sink = sink + file->string_value(key).size(); });
      try_getter([&] { sink = sink + static_cast<size_t>(file->integer_value(key)); });
      try_getter([&] { sink = sink + static_cast<size_t>(file->float_value(key) != 0); });
      try_getter([&] { sink = sink + file->bool_value(key); });
      try_getter([&] { sink = sink + file->string_array(key).size(); });
      try_getter([&] { sink = sink + file->integer_array(key).size(); });
      try_getter([&] { sink = sink + file->float_array(key).size(); });
    }
    sink = sink + aw::gguf_quantisation_summary(*file).size();
    for (const auto& tensor : file->tensors()) {
      uint64_t count = 1;
      for (const auto dim : tensor.shape) count *= static_cast<uint64_t>(dim);
      if (count != tensor.element_count || file->data_offset() + tensor.offset + tensor.byte_size > file->file_size())
        std::abort();  // a shape or a range the reader should have refused
      if (!aw::can_dequantise(tensor.type)) continue;
      const auto values = file->dequantised(tensor.name, 1);
      if (values.size() != tensor.element_count) std::abort();
      if (!values.empty()) sink = sink + static_cast<size_t>(values.front() == values.back());
    }
  });
  aw::fuzz::parses_or_refuses([&] { aw::load_gguf_model(path); });
  return 0;
}
