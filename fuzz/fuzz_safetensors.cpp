// fuzz/fuzz_safetensors.cpp — model.safetensors: header length, JSON header, dtypes, shapes and data
// ranges; every tensor the reader accepts is read at both ends of its range.
#include "fuzz/fuzz_support.h"

#include "models/checkpoint/safetensors.h"

#include <torch/torch.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("model.safetensors", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto file = aw::SafetensorsFile::open(path);
    volatile uint8_t sink = 0;
    for (const auto& name : file->names()) {
      const auto& record = file->record(name);
      const auto tensor = file->tensor(name);
      const auto bytes = static_cast<int64_t>(record.end - record.begin);
      if (tensor.numel() * static_cast<int64_t>(tensor.element_size()) != bytes) std::abort();  // view ≠ range
      if (bytes > 0) {
        const auto* first = static_cast<const uint8_t*>(tensor.data_ptr());
        sink = sink + first[0] + first[bytes - 1];
      }
    }
    for (const auto& entry : file->metadata()) sink = sink + static_cast<uint8_t>(entry.first.size());
  });
  return 0;
}
