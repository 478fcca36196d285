// bench/bench_gui_toggle.cpp — what a head toggle costs in the desktop application: the window
// re-runs the current sentence through ModelSession::attend (full capture, predictions, conversion
// to plain floats) with the new gates. Budget: 100 ms on the sample models on a CPU (issue 5); the
// baseline in the same run is the same call with every head on.
#include "app/gui/model_session.h"

#include <benchmark/benchmark.h>

namespace {

const QString kSentence = "The band released their second album in 1998 , and it was praised by critics for its songs .";

aw::ModelSession& sample_session() {
  static aw::ModelSession session;
  if (session.count() == 0) {
    session.load(AW_SOURCE_DIR "/sample_data/vanilla_lm");
    session.load(AW_SOURCE_DIR "/sample_data/bet_sf");
  }
  return session;
}

void attend(benchmark::State& state, bool one_head_off) {
  auto& session = sample_session();
  const int model = static_cast<int>(state.range(0));
  auto gates = aw::HeadGates::allOn(session.summary(model).heads_per_layer);
  if (one_head_off) gates.on[0][1] = false;
  for (auto _ : state) benchmark::DoNotOptimize(session.attend(model, kSentence, gates));
  state.SetLabel(session.summary(model).name.toStdString());
}

void BM_AttendAllHeadsOn(benchmark::State& state) { attend(state, false); }
void BM_AttendAfterToggle(benchmark::State& state) { attend(state, true); }

}  // namespace

BENCHMARK(BM_AttendAllHeadsOn)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttendAfterToggle)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
