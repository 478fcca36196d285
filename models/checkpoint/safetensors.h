// models/checkpoint/safetensors.h — memory-mapped reader and a writer for the safetensors format
// (8-byte little-endian header length N, N bytes of JSON, then the raw tensor bytes).
// Every file is validated before use: header length, JSON, dtypes, shape × dtype size = byte range,
// ranges inside the data section and not overlapping. Errors name the file and the tensor.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aw {

class AtomicFile;

struct TensorRecord {
  std::string name;
  std::string dtype;             // as written in the file: "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;
  uint64_t begin = 0;            // byte offsets relative to the start of the data section
  uint64_t end = 0;
};

// Named tensors in one file or spread over several (a sharded checkpoint, sharded_weights.h): what
// load_weights reads. `path_of` is the file holding a tensor, for messages; `description` the whole.
class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual const std::string& description() const = 0;
  virtual bool contains(const std::string& name) const = 0;
  virtual const TensorRecord& record(const std::string& name) const = 0;
  virtual std::vector<std::string> names() const = 0;  // sorted
  virtual torch::Tensor tensor(const std::string& name) const = 0;
  virtual const std::string& path_of(const std::string& name) const = 0;
};

class SafetensorsFile : public TensorSource {
 public:
  // Maps and validates the file; throws aw::Error("<path>: <what is wrong>").
  static std::shared_ptr<const SafetensorsFile> open(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& description() const override { return path_; }
  const std::string& path_of(const std::string&) const override { return path_; }
  uint64_t file_size() const { return file_size_; }
  bool contains(const std::string& name) const override;
  // Throws aw::Error("<path>: no tensor '<name>'") when absent.
  const TensorRecord& record(const std::string& name) const override;
  std::vector<std::string> names() const override;  // sorted
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // A CPU tensor in the stored dtype that views the mapped bytes (no copy); it keeps the mapping
  // alive. Read-only: copy or convert before writing to it.
  torch::Tensor tensor(const std::string& name) const override;

 private:
  SafetensorsFile() = default;
  std::string path_;
  uint64_t file_size_ = 0;
  const uint8_t* mapping_ = nullptr;   // whole file
  const uint8_t* data_ = nullptr;      // start of the data section
  std::map<std::string, TensorRecord> records_;
  std::map<std::string, std::string> metadata_;
  std::weak_ptr<const SafetensorsFile> self_;
};

// Writes a safetensors file one tensor at a time, so the caller never holds them all (an attention
// export at 1,024 tokens: one layer in memory, not twelve). The header needs every offset, so names,
// dtypes and shapes are declared first; then write() takes each tensor in the declared order. The
// bytes go to "<path>.tmp", renamed by finish(); a writer destroyed unfinished (an error, Ctrl-C
// unwinding) removes it, so a failed write never leaves a half file. Errors name the file.
class SafetensorsWriter {
 public:
  struct Declared {
    std::string name;
    torch::ScalarType dtype;
    std::vector<int64_t> shape;
  };
  SafetensorsWriter(std::string path, const std::vector<Declared>& tensors,
                    const std::map<std::string, std::string>& metadata = {});
  ~SafetensorsWriter();
  SafetensorsWriter(const SafetensorsWriter&) = delete;
  SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

  // The next declared tensor (any device; converted to a contiguous CPU copy as needed). Its dtype
  // and shape must be the declared ones.
  void write(const torch::Tensor& value);
  // Part of the next declared tensor, [A, R, C] (an attention layer [heads, queries, keys]): its rows
  // first_row … first_row + r − 1 given as `rows` [A, r, C], in row order; the tensor is complete,
  // and the next one's turn, once its last row is written. Each of the A slices goes to its place.
  // A tensor declared [R, C] takes rows [r, C] (or [1, r, C]).
  void write_rows(const torch::Tensor& rows, int64_t first_row);
  // After the last write: closes the file and renames it into place.
  void finish();

 private:
  [[noreturn]] void fail(const std::string& message);
  std::string path_;
  std::vector<Declared> declared_;
  std::vector<uint64_t> offsets_;  // each declared tensor's first byte in the file
  size_t next_ = 0;
  int64_t rows_written_ = 0;       // of the next tensor, by write_rows
  std::unique_ptr<AtomicFile> file_;
};

// Writes tensors (any device; contiguous copies are made as needed) in the given order.
// Supported dtypes: float32, float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool.
// Writes to "<path>.tmp" and renames, so an interrupted write never leaves a half file.
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace aw
