// fuzz/fuzz_sentencepiece.cpp — SentencePiece-backed loading: a .spm model (protobuf, parsed by the
// library), an optional Marian vocab.json, then arbitrary bytes encoded and decoded.
#include "fuzz/fuzz_support.h"

#include "models/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 3);
  const auto model = aw::fuzz::scratch_file("source.spm", parts[0]);
  const auto vocab = parts[1].empty() ? std::string() : aw::fuzz::scratch_file("vocab.json", parts[1]);
  std::unique_ptr<aw::Tokenizer> tokenizer;
  if (!aw::fuzz::parses_or_refuses([&] { tokenizer = aw::load_sentencepiece_tokenizer(model, vocab, !vocab.empty()); }))
    return 0;
  aw::fuzz::parses_or_refuses([&] {
    const auto encoding = tokenizer->encode(parts[2]);
    for (auto id : encoding.ids) (void)tokenizer->token_text(id);
    (void)tokenizer->decode(encoding.ids);
  });
  return 0;
}
