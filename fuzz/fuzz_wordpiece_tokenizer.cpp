// fuzz/fuzz_wordpiece_tokenizer.cpp — BERT WordPiece: vocab.txt, then arbitrary bytes encoded alone and
// as a sentence pair, cased and uncased (accent stripping through ICU).
#include "fuzz/fuzz_support.h"

#include "models/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 2);
  const auto vocab = aw::fuzz::scratch_file("vocab.txt", parts[0]);
  for (bool lowercase : {true, false}) {
    std::unique_ptr<aw::Tokenizer> tokenizer;
    if (!aw::fuzz::parses_or_refuses([&] { tokenizer = aw::load_wordpiece_tokenizer(vocab, lowercase); })) return 0;
    aw::fuzz::parses_or_refuses([&] {
      const auto encoding = tokenizer->encode(parts[1]);
      for (auto id : encoding.ids) (void)tokenizer->token_text(id);
      (void)tokenizer->decode(encoding.ids);
      (void)tokenizer->encode_pair(parts[1], parts[1]);
    });
  }
  return 0;
}
