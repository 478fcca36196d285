// models/atomic_file.cpp — see atomic_file.h.
#include "models/atomic_file.h"

#include "models/errors.h"

namespace aw {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {
  out_ = std::fopen(temporary_.c_str(), "wb");
  if (out_ == nullptr) fail_in_file(path_, "cannot write: " + system_error());
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (out_ == nullptr) return;
  std::fclose(out_);
  out_ = nullptr;
  std::remove(temporary_.c_str());
}

void AtomicFile::fail(const std::string& reason) {
  discard();
  fail_in_file(path_, "cannot write: " + reason);
}

void AtomicFile::write(const void* data, size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, out_) != bytes) fail(system_error());
}

void AtomicFile::write_at(uint64_t offset, const void* data, size_t bytes) {
  if (fseeko(out_, static_cast<off_t>(offset), SEEK_SET) != 0) fail(system_error());
  write(data, bytes);
}

void AtomicFile::commit() {
  const bool closed = std::fclose(out_) == 0;
  out_ = nullptr;
  if (!closed) {
    const auto reason = system_error();
    std::remove(temporary_.c_str());
    fail_in_file(path_, "cannot write: " + reason);
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const auto reason = system_error();
    std::remove(temporary_.c_str());
    fail_in_file(path_, "cannot replace with " + temporary_ + ": " + reason);
  }
}

}  // namespace aw
