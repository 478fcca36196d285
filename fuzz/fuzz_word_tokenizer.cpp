// fuzz/fuzz_word_tokenizer.cpp — word-level vocab.txt and the corpus readers built on it: the text part
// is tokenised as a sentence, as a corpus file, and as the source of a new vocabulary.
#include "fuzz/fuzz_support.h"

#include "models/text/corpus.h"
#include "models/text/tokenizer.h"
#include "models/text/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = aw::fuzz::split_parts(data, size, 2);
  const auto vocab = aw::fuzz::scratch_file("vocab.txt", parts[0]);
  const auto text = aw::fuzz::scratch_file("corpus.txt", parts[1]);
  aw::fuzz::parses_or_refuses([&] { (void)aw::build_word_vocabulary(text, 1); });
  for (bool normalize : {false, true}) {
    std::unique_ptr<aw::Tokenizer> tokenizer;
    if (!aw::fuzz::parses_or_refuses([&] { tokenizer = aw::load_word_tokenizer(vocab, normalize); })) return 0;
    aw::fuzz::parses_or_refuses([&] {
      const auto encoding = tokenizer->encode(parts[1]);
      (void)tokenizer->decode(encoding.ids);
    });
    aw::fuzz::parses_or_refuses([&] { (void)aw::read_token_corpus(text, *tokenizer); });
  }
  return 0;
}
