// bench/bench_gui_toggle.cpp — what a head toggle costs the desktop application's model session on
// the sample models: ModelSession::attend re-runs the sentence with the new gates from the toggled
// layer up (analysis/capture/staged_capture.h) and hands back the blocks as plain floats, with thumbnails
// and the last position's predictions. Budget: 100 ms on a CPU (issue 5). The baseline in the same
// run is a new sentence, which runs every layer.
#include "app/gui/model_session.h"

#include <benchmark/benchmark.h>

namespace {

const QString kSentences[] = {
    "The band released their second album in 1998 , and it was praised by critics for its songs .",
    "The band released their third album in 2001 , and it was praised by critics for its lyrics ."};

aw::ModelSession& sample_session() {
  static aw::ModelSession session;
  if (session.count() == 0) {
    session.load(AW_SOURCE_DIR "/sample_data/vanilla_lm");
    session.load(AW_SOURCE_DIR "/sample_data/bet_sf");
  }
  return session;
}

// Arg 0: the model (0 vanilla_lm, 1 bet_sf). Each iteration attends to the other sentence.
void BM_AttendNewSentence(benchmark::State& state) {
  auto& session = sample_session();
  const int model = static_cast<int>(state.range(0));
  int which = 0;
  for (auto _ : state) benchmark::DoNotOptimize(session.attend(model, kSentences[which ^= 1]));
  state.SetLabel(session.summary(model).name.toStdString());
}

// Arg 0: the model; arg 1: the layer (1-based) whose head 2 each iteration switches off or on again.
void BM_AttendAfterToggle(benchmark::State& state) {
  auto& session = sample_session();
  const int model = static_cast<int>(state.range(0)), layer = static_cast<int>(state.range(1)) - 1;
  auto gates = aw::HeadGates::allOn(session.summary(model).heads_per_block);
  session.attend(model, kSentences[0], gates);
  for (auto _ : state) {
    gates.on[layer][1] = !gates.on[layer][1];
    benchmark::DoNotOptimize(session.attend(model, kSentences[0], gates));
  }
  state.SetLabel(session.summary(model).name.toStdString());
}

}  // namespace

BENCHMARK(BM_AttendNewSentence)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttendAfterToggle)->Args({0, 1})->Args({0, 2})->Args({1, 1})->Args({1, 2})->ArgNames({"model", "layer"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
