// analysis/capture/kept_state.cpp — see kept_state.h.
#include "analysis/capture/kept_state.h"

#include "models/errors.h"

#include <fcntl.h>
#include <unistd.h>

#include <torch/torch.h>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

namespace aw {
namespace {

[[noreturn]] void cannot(const std::string& what, const std::string& folder) {
  throw Error("cannot " + what + " a long text's layer states in " + folder + " (the temporary folder, TMPDIR): " +
              system_error());
}

// Closing an unlinked file's last descriptor frees its blocks, and the file system may discard them on
// the disk before close() returns (ext4 mounted with `discard`: 100–150 ms for one of Llama-1B's 33-MB
// states at 8,192 tokens). The window lets go of a run's states on its UI thread, so the descriptors
// are closed here, on a thread of their own, in the order given.
class StateFileCloser {
 public:
  static StateFileCloser& shared() {
    static auto* closer = new StateFileCloser;  // never destroyed: its thread may be waiting at exit
    return *closer;
  }
  void close_later(int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(fd);
    ++given_;
    wake_.notify_one();
  }
  void wait_until_closed() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return closed_ == given_; });
  }

 private:
  StateFileCloser() { std::thread([this] { close_forever(); }).detach(); }
  void close_forever() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return !pending_.empty(); });
      const auto closing = std::move(pending_);
      pending_.clear();
      lock.unlock();
      for (const int fd : closing) close(fd);
      lock.lock();
      closed_ += closing.size();
      done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<int> pending_;
  size_t given_ = 0, closed_ = 0;
};

}  // namespace

std::shared_ptr<const KeptState> KeptState::keep(const torch::Tensor& state, bool to_file) {
  std::shared_ptr<KeptState> kept(new KeptState());
  if (!to_file) {
    kept->held_ = state;
    return kept;
  }
  kept->shape_ = state.sizes().vec();
  kept->dtype_ = state.scalar_type();
  kept->device_ = state.device();
  const char* tmpdir = std::getenv("TMPDIR");
  kept->folder_ = tmpdir && *tmpdir ? tmpdir : "/tmp";
  std::string name = (std::filesystem::path(kept->folder_) / "aw-states-XXXXXX").string();
  kept->fd_ = mkstemp(name.data());
  if (kept->fd_ < 0) cannot("make a file for", kept->folder_);
  unlink(name.c_str());  // gone with the descriptor
  const auto bytes = state.to(torch::kCPU).contiguous();
  const auto* data = static_cast<const char*>(bytes.data_ptr());
  const auto size = static_cast<size_t>(bytes.nbytes());
  for (size_t written = 0; written < size;) {
    const auto step = pwrite(kept->fd_, data + written, size - written, static_cast<off_t>(written));
    if (step < 0 && errno == EINTR) continue;
    if (step <= 0) cannot("write", kept->folder_);
    written += static_cast<size_t>(step);
  }
  return kept;
}

KeptState::~KeptState() {
  if (fd_ >= 0) StateFileCloser::shared().close_later(fd_);
}

void KeptState::wait_until_files_closed() { StateFileCloser::shared().wait_until_closed(); }

torch::Tensor KeptState::tensor() const {
  if (fd_ < 0) return held_;
  auto state = torch::empty(shape_, torch::TensorOptions().dtype(dtype_));
  auto* data = static_cast<char*>(state.data_ptr());
  const auto size = static_cast<size_t>(state.nbytes());
  for (size_t read = 0; read < size;) {
    const auto step = pread(fd_, data + read, size - read, static_cast<off_t>(read));
    if (step < 0 && errno == EINTR) continue;
    if (step <= 0) cannot("read back", folder_);
    read += static_cast<size_t>(step);
  }
  return state.to(device_);
}

}  // namespace aw
