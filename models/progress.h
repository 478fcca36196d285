// models/progress.h — how long-running analyses report progress and learn they are cancelled.
#pragma once

#include <cstdint>
#include <functional>

namespace aw {

// Called after each unit of work with (done, total); returning false cancels the analysis, which
// then returns what it has with `cancelled` set.
using ProgressCallback = std::function<bool(int64_t done, int64_t total)>;

inline bool report_progress(const ProgressCallback& progress, int64_t done, int64_t total) {
  return !progress || progress(done, total);
}

}  // namespace aw
