// fuzz/fuzz_sentence_file.cpp — top-tokens sentence files (one sentence per line, optionally
// sentence<TAB>target position).
#include "fuzz/fuzz_support.h"

#include "analysis/attention_stats/top_tokens.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("sentences.txt", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    for (const auto& request : aw::read_top_token_requests(path))
      if (request.text.empty()) std::abort();  // empty lines are skipped, never requests
  });
  return 0;
}
