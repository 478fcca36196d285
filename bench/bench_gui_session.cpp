// bench/bench_gui_session.cpp — the desktop application at real scale (issue 16): the main window with
// a random GPT-2-small layout (12 layers × 12 heads, d 768, d_ff 3,072, vocabulary 50,257; written by
// the bench) on a 1,024-token text, driven as a person drives it: the first map, a head toggle in
// layer 12 and in layer 1, a layer change. Each is timed until the window has applied and painted
// the result. The baselines, in the same run, are the forward of the layers each recomputes and, for
// a layer change (the window holds the shown layer's floats only), one layer's attention alone.
//
// A 2-ms heartbeat timer on the UI thread runs throughout; `ui_stall_ms` is the longest gap between
// its ticks during a benchmark, less its 2-ms period: how long the window could not respond. The same
// window on a long text (8,192 tokens, a llama layout) is bench_gui_long_text.cpp, in this executable.
#include "app/gui/attention_view.h"
#include "app/gui/main_window.h"
#include "bench/bench_support.h"
#include "bench/gui_bench_support.h"
#include "models/runtime.h"
#include "widgets/head_toggle_grid.h"

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <QApplication>
#include <QStandardPaths>

#include <random>

#include <sys/resource.h>

namespace {

constexpr int kLayers = 12, kTokens = 1024, kVocabulary = 50257;  // bench_support's gpt2_small_dir

// kTokens random words of the vocabulary ("t17 t40211 …"), different per seed.
QString random_text(unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> word(1, kVocabulary - 1);
  QStringList words;
  for (int i = 0; i < kTokens; ++i) words << QString("t%1").arg(word(generator));
  return words.join(' ');
}

struct Session {
  aw::MainWindow window;
  aw::bench::Heartbeat& heartbeat = aw::bench::heartbeat();
  QString text = random_text(1);

  Session() {
    window.resize(1366, 768);
    window.show();
    window.openCheckpoint(QString::fromStdString(aw::bench::gpt2_small_dir()));
    settle();
    window.runSentence(text);
    settle();
  }
  void settle() { aw::bench::settle(window); }
};

Session& session() {
  static Session* shared = new Session;  // lives until exit: the window outlasts every benchmark
  return *shared;
}

void BM_FirstMap(benchmark::State& state) {
  auto& s = session();
  unsigned seed = 2;
  s.heartbeat.reset();
  for (auto _ : state) {
    s.window.runSentence(random_text(seed++));  // a new text: every layer runs
    s.settle();
  }
  state.counters["ui_stall_ms"] = s.heartbeat.stallMs();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;  // whole process, load included
}

// Arg: the layer (1-based) whose head 1 is switched off, then on again, each a re-run.
void BM_ToggleHead(benchmark::State& state) {
  auto& s = session();
  const int layer = static_cast<int>(state.range(0)) - 1;
  s.heartbeat.reset();
  for (auto _ : state) {
    s.window.headsPanel()->toggle(layer, 0);
    s.settle();
  }
  state.counters["ui_stall_ms"] = s.heartbeat.stallMs();
}

// Layer 6 ↔ 7, mean of the heads: the capture holds the shown layer only, so the other one's
// attention is made again on a worker (from the state kept entering it), then averaged and painted.
void BM_LayerChange(benchmark::State& state) {
  auto& s = session();
  auto* view = s.window.attentionView();
  int layer = 5;
  s.heartbeat.reset();
  for (auto _ : state) {
    layer = layer == 5 ? 6 : 5;
    view->setLayerHead(layer, -1);
    s.settle();
  }
  state.counters["ui_stall_ms"] = s.heartbeat.stallMs();
}

// Baseline: the plain forward (no capture) of the last `Arg` layers on the same model and length.
void BM_ForwardLayers(benchmark::State& state) {
  static auto loaded = aw::load_checkpoint(aw::bench::gpt2_small_dir(), torch::kCPU);
  c10::InferenceMode inference;
  const int64_t run = state.range(0);
  aw::ModelInput input;
  input.input_ids = torch::randint(1, kVocabulary, {1, kTokens}, torch::kLong);
  auto hidden = loaded.model->embed(input);
  hidden = loaded.model->run_layers(hidden, input, 0, kLayers - run, {}).hidden;
  for (auto _ : state) benchmark::DoNotOptimize(loaded.model->run_layers(hidden, input, kLayers - run, kLayers, {}).hidden);
}

// Baseline of a layer change: one layer's attention probabilities made again from the state entering
// it (AttentionModel::layer_attention: the query/key products and the softmax, no values or MLP).
void BM_LayerAttention(benchmark::State& state) {
  static auto loaded = aw::load_checkpoint(aw::bench::gpt2_small_dir(), torch::kCPU);
  c10::InferenceMode inference;
  aw::ModelInput input;
  input.input_ids = torch::randint(1, kVocabulary, {1, kTokens}, torch::kLong);
  auto hidden = loaded.model->run_layers(loaded.model->embed(input), input, 0, 6, {}).hidden;
  for (auto _ : state) benchmark::DoNotOptimize(loaded.model->layer_attention(hidden, input, 6, {}));
}

}  // namespace

BENCHMARK(BM_LayerAttention)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_ForwardLayers)->Arg(12)->Arg(1)->ArgName("layers")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_FirstMap)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_ToggleHead)->Arg(12)->Arg(1)->ArgName("layer")->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(4);
BENCHMARK(BM_LayerChange)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  QApplication application(argc, argv);
  QStandardPaths::setTestModeEnabled(true);  // the window's last-session file goes to a test folder
  aw::configure_allocator();
  aw::configure_threads();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
