// bench/gui_bench_support.h — what the window benchmarks share (bench_gui_session.cpp,
// bench_gui_long_text.cpp): a heartbeat on the UI thread that measures how long the window could not
// respond, and a main window driven until it has applied and painted what it was asked.
#pragma once

#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace aw::bench {

constexpr int kHeartbeatMs = 2;

// A 2-ms timer on the UI thread: the longest gap between its ticks since reset(), less the period, is
// the longest time the window could not respond (`ui_stall_ms`). A block over 100 ms is also said on
// stderr as it happens, to place it among the benchmark's steps.
class Heartbeat {
 public:
  Heartbeat() {
    timer_.setInterval(kHeartbeatMs);
    QObject::connect(&timer_, &QTimer::timeout, [this] {
      const auto gap = clock_.restart();
      if (gap > 100) std::fprintf(stderr, "[heartbeat] the UI thread was blocked %lld ms\n", static_cast<long long>(gap));
      longest_ = std::max(longest_, gap);
    });
    clock_.start();
    timer_.start();
  }
  void reset() {
    QCoreApplication::processEvents();
    clock_.restart();
    longest_ = 0;
  }
  double stallMs() const { return static_cast<double>(std::max<qint64>(0, longest_ - kHeartbeatMs)); }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 longest_ = 0;
};

inline Heartbeat& heartbeat() {
  static Heartbeat* shared = new Heartbeat;  // one per process, ticking until exit
  return *shared;
}

// Spins the event loop until `window` has applied every job (a run, a layer or region being made, a
// zoom waiting to rest), then paints it; a window error ends the benchmark.
inline void settle(MainWindow& window) {
  // Blocks until an event comes (the heartbeat brings one every 2 ms); a time limit would make it spin.
  while (window.isBusy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
  QCoreApplication::processEvents();  // queued replots
  window.attentionView()->repaint();
  if (!window.errorText().isEmpty()) throw std::runtime_error(window.errorText().toStdString());
}

}  // namespace aw::bench
