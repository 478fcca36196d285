// models/attention_path.cpp — see attention_path.h.
#include "models/attention_path.h"

#include <torch/version.h>

#include <atomic>

namespace aw {
namespace {

std::atomic<bool> fused_allowed{true};

}  // namespace

bool fused_attention_available() {
  // LibTorch 2.x has at::scaled_dot_product_attention; 1.13 (Debian 12) has only a private variant.
#if TORCH_VERSION_MAJOR >= 2
  return true;
#else
  return false;
#endif
}

bool fused_attention_allowed() { return fused_allowed.load(); }

void set_fused_attention_allowed(bool allowed) { fused_allowed.store(allowed); }

}  // namespace aw
