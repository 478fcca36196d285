// fuzz/fuzz_config.cpp — config.json of every family (the native ones, gpt2, bert, marian, bart, llama,
// mistral, qwen2, gpt_neox). A native config the reader accepts must also survive the round trip
// through native_config_json.
#include "fuzz/fuzz_support.h"

#include "models/errors.h"
#include "models/nn/model_config.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  aw::fuzz::scratch_file("config.json", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto config = aw::read_model_config(aw::fuzz::scratch_dir());
    if (config.format != aw::CheckpointFormat::Native) return;
    const auto written = aw::native_config_json(config);
    // What this workbench writes it must read back: a refusal here is a finding, not bad input.
    try {
      aw::parse_model_config(written, "round trip");
    } catch (const aw::Error& error) {
      std::fprintf(stderr, "aw-fuzz: FINDING: a native config does not read back: %s\n", error.what());
      std::abort();
    }
  });
  return 0;
}
