// fuzz/fuzz_json.cpp — the one reader of untrusted JSON (tokenizer_config.json, training.json, vocab.json,
// headers): depth limit, number range, messages; an accepted value is printed back as an excerpt.
#include "fuzz/fuzz_support.h"

#include "models/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("training.json", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto value = aw::read_untrusted_json(path);
    if (aw::json_excerpt(value).size() > 200) std::abort();  // excerpts stay short, whatever the value
  });
  return 0;
}
