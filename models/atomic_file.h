// models/atomic_file.h — a file written whole or not at all: the bytes go to "<path>.tmp", renamed
// over `path` by commit(); destroyed uncommitted (an error, an exception unwinding past it) or
// discarded, it removes the temporary file, so a failed write never leaves a half file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace aw {

class AtomicFile {
 public:
  // Opens "<path>.tmp"; throws aw::Error("<path>: cannot write: <reason>").
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws aw::Error("<path>: cannot write: <reason>") and discards the file.
  void write(const void* data, size_t bytes);
  // Writes at byte `offset` of the file (a region declared before, filled in any order); later
  // write() calls go on from the end of this one.
  void write_at(uint64_t offset, const void* data, size_t bytes);
  // Closes and renames into place (throws as write does).
  void commit();
  // Closes and removes the temporary file (nothing to do once committed or discarded).
  void discard();
  bool isOpen() const { return out_ != nullptr; }

 private:
  [[noreturn]] void fail(const std::string& reason);
  std::string path_, temporary_;
  std::FILE* out_ = nullptr;
};

}  // namespace aw
