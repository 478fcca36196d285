// fuzz/fuzz_gpt2_tokenizer.cpp — GPT-2 byte-level BPE: vocab.json, merges.txt, then arbitrary bytes
// encoded, decoded and shown token by token.
#include "fuzz/fuzz_support.h"

#include "models/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 3);
  const auto vocab = aw::fuzz::scratch_file("vocab.json", parts[0]);
  const auto merges = aw::fuzz::scratch_file("merges.txt", parts[1]);
  std::unique_ptr<aw::Tokenizer> tokenizer;
  if (!aw::fuzz::parses_or_refuses([&] { tokenizer = aw::load_gpt2_tokenizer(vocab, merges); })) return 0;
  aw::fuzz::parses_or_refuses([&] {
    const auto encoding = tokenizer->encode(parts[2]);
    for (auto id : encoding.ids) (void)tokenizer->token_text(id);
    (void)tokenizer->decode(encoding.ids);
  });
  return 0;
}
