// app/cli/progress.cpp — see progress.h.
#include "app/cli/progress.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace aw {
namespace {

std::atomic<bool> interrupted{false};

// The work stops where it next reports progress (training: at its next --log-every step, where the
// run is saved whole), which can be minutes away: say so at once. write(2) is safe in a handler.
extern "C" void on_interrupt(int) {
  if (interrupted.exchange(true)) std::_Exit(130);
  static const char kNotice[] =
      "\nattention-cli: stopping at the next progress report (a training run is saved there); "
      "Ctrl-C again quits at once, without saving\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kNotice, sizeof kNotice - 1);
}

}  // namespace

// SIGTERM too: a batch scheduler (Slurm, systemd) asks a job to stop with it before killing it.
void install_interrupt_handler() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}
bool interrupt_requested() { return interrupted.load(); }

ProgressLine::ProgressLine(std::string task, std::string unit) : task_(std::move(task)), unit_(std::move(unit)) {}

ProgressLine::~ProgressLine() {
  if (printed_) std::fputc('\n', stderr);
}

bool ProgressLine::operator()(int64_t done, int64_t total) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const bool finished = done >= total;
  if (elapsed >= 1.0 && (finished || now - last_print_ >= std::chrono::milliseconds(200))) {
    last_print_ = now;
    const double rate = done / elapsed;
    const double eta = rate > 0 ? (total - done) / rate : 0.0;
    std::fprintf(stderr, "\r%s: %lld/%lld %s, %.1f/s, ETA %.0f s   ", task_.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total), unit_.c_str(), rate, eta);
    std::fflush(stderr);
    printed_ = true;
  }
  return !interrupted.load();
}

}  // namespace aw
