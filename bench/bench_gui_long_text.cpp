// bench/bench_gui_long_text.cpp — the main window on a long text (docs/long-context.md), linked into
// bench_gui_session: 8,192 tokens on a small llama layout (4 layers, 8/2 heads of 64, d 512, random
// BF16 weights written by the bench, computed in F32). Its map is the block means of 8 × 8 tokens
// (app/gui/pooled_zoom.h), driven as a person drives it:
//   - the first map (a new text: every layer runs, each pooled tile by tile);
//   - a wheel notch in or out over the pooled map, and a drag that pans it (5 moves of a 25th of the
//     span), through the heatmap's API as its wheel and drag handlers call it;
//   - a zoom to 512 × 512 tokens, which the window makes at full resolution (1,024 × 1,024 tokens
//     around them, from the state entering the layer) on a worker; the time includes the 150 ms the
//     window waits for a zoom to rest (PooledZoom::kSettleMs);
//   - a drag over those tokens at full resolution;
//   - a layer change on the whole pooled map, and one while zoomed in at full resolution;
//   - a new text's run cancelled after its first layer (Cancel over the map).
// Wheel and drag steps are timed until the window has painted the step; the rest until it has applied
// and painted the result. `ui_stall_ms` is the heartbeat's (gui_bench_support.h): the longest the UI
// thread was blocked during the benchmark, whatever it was waiting for.
//
// AW_BENCH_GUI_LLAMA1B=1 adds the same on the Llama-3.2-1B layout (bench_support.h kLlama1b, ~2.5 GB
// written once, computed in BF16 from the mapping), with the first map's peak resident memory over the
// weights; AW_BENCH_GUI_LLAMA1B=f32 computes it in F32 (a 4.9-GB copy; its first map ~10 minutes).
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "app/gui/pooled_zoom.h"
#include "bench/bench_support.h"
#include "bench/gui_bench_support.h"
#include "models/runtime.h"
#include "widgets/attention_heatmap.h"
#include "widgets/run_progress_bar.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QPushButton>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <string>

namespace {

using aw::bench::LlamaLayout;

constexpr int kTokens = 8192;

struct Layout {
  std::string name;  // the folder bench_support writes it to
  LlamaLayout layout;
  QString dtype;     // what the window computes in (--dtype)
};
// bench_long_context's small layout, in F32 (a 113-MB copy; BF16 products are slower on this CPU).
const Layout kSmall{"aw-bench-llama-small", {4, 8, 2, 64, 512, 1536, 32000}, "f32"};
// The mapped BF16 weights used in place, as attention-cli --dtype bf16; AW_BENCH_GUI_LLAMA1B=f32
// computes in F32 instead (a 4.9-GB copy), as bench_long_context does: Debian's LibTorch 1.13 runs
// BF16 products on one core where the CPU has no AVX-512 (the first map then takes over 40 minutes).
const Layout kOneB{"aw-bench-llama-1b", aw::bench::kLlama1b, "bf16"};
const Layout kOneBF32{"aw-bench-llama-1b", aw::bench::kLlama1b, "f32"};

// kTokens tokens in the llama tokenizer the layouts carry (tests/fixtures/hf_tokenizers/llama3.tokenizer.json):
// the start token, "the" (two: no space before it), then words that are one token each after a space,
// different per seed.
QString long_text(unsigned seed) {
  static const QStringList words = {"the", "and", "she", "was", "you", "tab"};
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(words.size()) - 1);
  QStringList text{"the"};
  for (int i = 3; i < kTokens; ++i) text << words[pick(generator)];
  return text.join(' ');
}

int64_t status_bytes(const std::string& field) {  // a "VmHWM:" / "VmRSS:" / "RssFile:" line of /proc/self/status
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size())) * 1024;
  return 0;
}

struct LongSession {
  aw::MainWindow window;
  aw::AttentionView* view = window.attentionView();
  aw::AttentionHeatmap* heatmap = view->heatmap();
  aw::PooledZoom* zoom = view->pooledZoom();
  bool ran = false;

  explicit LongSession(const Layout& layout) {
    window.resize(1366, 768);
    window.show();
    window.setComputeDtype(layout.dtype);
    window.openCheckpoint(QString::fromStdString(aw::bench::llama_layout_dir(layout.name, layout.layout)));
    settle();
  }
  void settle() { aw::bench::settle(window); }
  void run(unsigned seed) {
    window.runSentence(long_text(seed));
    settle();
    const auto* capture = view->capture(0);
    if (!capture || capture->length() != kTokens || capture->pool != 8)
      throw std::runtime_error("the long text gave " + std::to_string(capture ? capture->length() : 0) + " tokens");
    ran = true;
  }
  // The text shown, on the whole pooled map of layer 1.
  void ready() {
    if (!ran) run(1);
    if (zoom->isRegion() || view->layer() != 0) {
      view->setLayerHead(0, -1);
      zoom->showWholeMap();
      settle();
    }
  }
};

LongSession& long_session(const Layout& layout) {
  static std::map<std::string, LongSession*> sessions;  // live until exit, as the window benchmarks' do
  auto& session = sessions[layout.name];
  if (!session) session = new LongSession(layout);
  return *session;
}

double seconds_since(std::chrono::steady_clock::time_point start) { return aw::bench::seconds_since(start); }

// The time until the window has painted what the events asked: a frame.
double painted(LongSession& s, std::chrono::steady_clock::time_point start) {
  QCoreApplication::processEvents();
  s.view->repaint();
  return seconds_since(start);
}

// A wheel notch around the middle of the map (what the wheel handler calls: zoomBy, 0.8 per notch).
void wheel(LongSession& s, int notches) {
  s.heatmap->zoomBy(std::pow(0.8, notches), QPointF(s.heatmap->visibleCells().center()));
}

// A drag of 5 moves, each a 25th of the map's span to the right and down (what a drag calls on each
// mouse move: the visible cells moved), each painted; returns its time.
double drag(LongSession& s, int direction) {
  const auto start = std::chrono::steady_clock::now();
  for (int move = 1; move <= 5; ++move) {
    const QRect visible = s.heatmap->visibleCells();
    s.heatmap->setVisibleCells(visible.translated(direction * visible.width() / 25, direction * visible.height() / 25));
    painted(s, start);
  }
  return seconds_since(start);
}

// Zooms to 512 × 512 tokens (64 × 64 blocks) somewhere in the middle of the text, where the
// window makes them at full resolution.
void zoom_to_tokens(LongSession& s, int iteration) {
  const int first = 256 + 64 * (iteration % 4);  // blocks: tokens 2,049 on, a different place each time
  s.heatmap->setVisibleCells(QRect(first - 128, first, 64, 64));
}

void BM_LongFirstMap(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  unsigned seed = 1;
  aw::bench::heartbeat().reset();
  double peak_gb = 0, file_gb = 0;
  for (auto _ : state) {
    // Free memory the steps before kept (an earlier layout's runs) back to the kernel first: reused by
    // this run, it would not show in the high-water mark.
    aw::release_free_memory();
    std::ofstream("/proc/self/clear_refs") << "5";  // the high-water mark back to the current RSS
    const auto before = status_bytes("VmRSS:"), file_before = status_bytes("RssFile:");
    const auto start = std::chrono::steady_clock::now();
    s.run(seed++);
    state.SetIterationTime(seconds_since(start));
    // Mapped weights paged in by this run count in the high-water mark: taken off, they leave what the
    // run itself added (the states, the tiles, the pooled maps).
    file_gb = static_cast<double>(status_bytes("RssFile:") - file_before) / 1e9;
    peak_gb = static_cast<double>(status_bytes("VmHWM:") - before) / 1e9 - file_gb;
  }
  state.counters["ui_stall_ms"] = aw::bench::heartbeat().stallMs();
  state.counters["peak_over_weights_GB"] = peak_gb;
  state.counters["weights_paged_in_GB"] = file_gb;
}

// Drags to and fro, each timed until it is painted, resting between them; the longest stall of the UI
// thread over them all.
void time_drags(benchmark::State& state, LongSession& s) {
  int iteration = 0;
  aw::bench::heartbeat().reset();
  for (auto _ : state) {
    state.SetIterationTime(drag(s, iteration++ % 2 == 0 ? 1 : -1));
    s.settle();
  }
  state.counters["ui_stall_ms"] = aw::bench::heartbeat().stallMs();
}

// A wheel notch over the whole pooled map, in on odd iterations and out again on even ones: 1,024 → 819
// blocks on show, never few enough tokens for full resolution.
void BM_LongWheelStep(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  s.ready();
  int iteration = 0;
  aw::bench::heartbeat().reset();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    wheel(s, iteration++ % 2 == 0 ? 1 : -1);
    state.SetIterationTime(painted(s, start));
    s.settle();  // the zoom rests (150 ms), outside the step's time
  }
  state.counters["ui_stall_ms"] = aw::bench::heartbeat().stallMs();
}

// A drag over the pooled map zoomed to half of it (512 × 512 blocks, 4,096 tokens).
void BM_LongPanStep(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  s.ready();
  s.heatmap->setVisibleCells(QRect(256, 256, 512, 512));
  s.settle();
  time_drags(state, s);
}

// A zoom to 512 × 512 tokens: the window makes 1,024 × 1,024 tokens around them at full resolution.
void BM_LongZoomToTokens(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  int iteration = 0;
  double stall = 0;
  for (auto _ : state) {
    s.ready();  // the whole pooled map again, outside the time
    aw::bench::heartbeat().reset();
    const auto start = std::chrono::steady_clock::now();
    zoom_to_tokens(s, iteration++);
    s.settle();
    state.SetIterationTime(seconds_since(start));
    if (s.zoom->regionTokens().width() != 1024) throw std::runtime_error("no region at full resolution");
    stall = std::max(stall, aw::bench::heartbeat().stallMs());
  }
  state.counters["ui_stall_ms"] = stall;
}

// A drag over 512 × 512 tokens at full resolution (inside the region made for them: nothing is made).
void BM_LongPanTokens(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  s.ready();
  zoom_to_tokens(s, 0);
  s.settle();
  time_drags(state, s);
}

// Layer 1 ↔ 2, mean of the heads; Arg 0: the whole pooled map (the layer's block means made again,
// tile by tile); Arg 1: zoomed in at full resolution (the same 1,024 × 1,024 tokens of the other layer).
void BM_LongLayerChange(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  s.ready();
  if (state.range(0) == 1) {
    zoom_to_tokens(s, 0);
    s.settle();
  }
  int layer = 0;
  aw::bench::heartbeat().reset();
  for (auto _ : state) {
    layer = layer == 0 ? 1 : 0;
    const auto start = std::chrono::steady_clock::now();
    s.view->setLayerHead(layer, -1);
    s.settle();
    state.SetIterationTime(seconds_since(start));
  }
  state.counters["ui_stall_ms"] = aw::bench::heartbeat().stallMs();
}

// A new text's run cancelled once a layer is done (Cancel clicked, as a person does): the time from the
// click until the window is idle again, the map saying so; the longest UI-thread block from the run's
// start to then. Last: the text it leaves has no map.
void BM_LongCancel(benchmark::State& state, const Layout* layout) {
  auto& s = long_session(*layout);
  unsigned seed = 100;
  double stall = 0;
  for (auto _ : state) {
    aw::bench::heartbeat().reset();
    s.window.runSentence(long_text(seed++));
    auto* bar = s.view->runBar();
    // "Running …: 1.3 of 4 layers, …": the layers done.
    const auto layers_done = [bar] { return bar->text().section(": ", 1).section(" of ", 0, 0).toDouble(); };
    while (!bar->isRunning() || layers_done() < 1) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const auto start = std::chrono::steady_clock::now();
    bar->cancelButton()->click();
    s.settle();
    state.SetIterationTime(seconds_since(start));
    if (s.view->capture(0)) throw std::runtime_error("the cancelled run left a map");
    stall = std::max(stall, aw::bench::heartbeat().stallMs());
  }
  s.ran = false;  // the next benchmark runs a text again
  state.counters["ui_stall_ms"] = stall;
}

// Registered here, in the order they build on each other; the 1B layout only when asked for.
bool register_long_text(const Layout* layout, const std::string& tag, int repeats) {
  auto add = [&](const std::string& name, void (*function)(benchmark::State&, const Layout*)) {
    return benchmark::RegisterBenchmark(("BM_Long" + name + "/" + tag).c_str(), function, layout)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime();
  };
  add("FirstMap", BM_LongFirstMap)->Iterations(1);
  add("WheelStep", BM_LongWheelStep)->Iterations(4 * repeats);
  add("PanStep", BM_LongPanStep)->Iterations(2 * repeats);
  add("ZoomToTokens", BM_LongZoomToTokens)->Iterations(repeats);
  add("PanTokens", BM_LongPanTokens)->Iterations(2 * repeats);
  add("LayerChange", BM_LongLayerChange)->Arg(0)->Arg(1)->ArgName("zoomed")->Iterations(repeats);
  add("Cancel", BM_LongCancel)->Iterations(repeats);
  return true;
}

const QByteArray one_b = qgetenv("AW_BENCH_GUI_LLAMA1B");
const bool registered = register_long_text(&kSmall, "llama_small", 3) &&
                        (one_b != "1" || register_long_text(&kOneB, "llama_1b", 1)) &&
                        (one_b != "f32" || register_long_text(&kOneBF32, "llama_1b_f32", 1));

}  // namespace
