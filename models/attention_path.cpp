// models/attention_path.cpp — see attention_path.h.
#include "models/attention_path.h"

#include <atomic>

namespace aw {
namespace {

std::atomic<bool> fused_allowed{true};

}  // namespace

bool fused_attention_allowed() { return fused_allowed.load(); }

void set_fused_attention_allowed(bool allowed) { fused_allowed.store(allowed); }

}  // namespace aw
