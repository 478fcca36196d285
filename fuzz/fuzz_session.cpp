// fuzz/fuzz_session.cpp — the desktop application's session files (Qt JSON): models, head gates, view
// and analysis settings, and the migration of version-1 files.
#include "fuzz/fuzz_support.h"

#include "app/gui/session_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("session.json", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto session = aw::read_session(QString::fromStdString(path));
    for (const auto& model : session.models) (void)model.gates.summary();
  });
  return 0;
}
