// app/cli/progress.h — the progress line attention-cli prints on stderr for work over a second
// ("eval: 12/40 batches, 3.1/s, ETA 9 s"), and Ctrl-C turned into a cancellation request.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace aw {

// Installs a SIGINT handler that only sets a flag; a second Ctrl-C ends the process at once.
void install_interrupt_handler();
bool interrupt_requested();

class ProgressLine {
 public:
  ProgressLine(std::string task, std::string unit);
  ~ProgressLine();
  // A ProgressCallback: prints at most every 200 ms once a second has passed; false after Ctrl-C.
  bool operator()(int64_t done, int64_t total);

 private:
  using Clock = std::chrono::steady_clock;
  std::string task_, unit_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_print_{};
  bool printed_ = false;
};

}  // namespace aw
