// analysis/capture/kept_state.h — a hidden state kept for reading later (the state entering a layer,
// which a layer change or a zoom computes that layer again from). A long text's states are many:
// Llama-3.2-1B's 17 at 8,192 tokens take 1.1 GB in F32. Those go to a temporary file, already unlinked
// (so nothing is left behind, even after a crash), and are read back one at a time when asked.
#pragma once

#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

namespace aw {

class KeptState {
 public:
  // In memory; or written to a file in the temporary folder (TMPDIR) when `to_file`. Throws aw::Error
  // naming the folder when it cannot be written (a full disk).
  static std::shared_ptr<const KeptState> keep(const torch::Tensor& state, bool to_file);
  ~KeptState();
  KeptState(const KeptState&) = delete;
  KeptState& operator=(const KeptState&) = delete;

  // The state as kept, on its device; for a file, a fresh copy read back from it.
  torch::Tensor tensor() const;
  bool in_file() const { return fd_ >= 0; }
  // A file's descriptor is closed on a thread of its own once its state is let go of (the close can
  // take 100 ms and more, and the window lets go of states on its UI thread): returns when every
  // state let go of so far has its file closed, and so its disk space back.
  static void wait_until_files_closed();

 private:
  KeptState() = default;
  torch::Tensor held_;  // in memory; undefined when in a file
  int fd_ = -1;         // the unlinked file
  std::string folder_;  // where it is, for errors
  std::vector<int64_t> shape_;
  torch::ScalarType dtype_ = torch::kFloat32;
  torch::Device device_ = torch::kCPU;
};

}  // namespace aw
