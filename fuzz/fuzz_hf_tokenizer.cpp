// fuzz/fuzz_hf_tokenizer.cpp — a Hugging Face tokenizer.json (byte-level or byte-fallback BPE), then
// arbitrary bytes encoded, decoded and shown token by token.
#include "fuzz/fuzz_support.h"

#include "models/text/hf_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 2);
  const auto path = aw::fuzz::scratch_file("tokenizer.json", parts[0]);
  std::unique_ptr<aw::Tokenizer> tokenizer;
  if (!aw::fuzz::parses_or_refuses([&] { tokenizer = aw::load_hf_tokenizer(path); })) return 0;
  aw::fuzz::parses_or_refuses([&] {
    const auto encoding = tokenizer->encode(parts[1]);
    for (auto id : encoding.ids) (void)tokenizer->token_text(id);
    (void)tokenizer->decode(encoding.ids);
  });
  return 0;
}
