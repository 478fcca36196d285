// fuzz/fuzz_conllu.cpp — CoNLL-U (words and heads): the trees, their text and BET(SG)'s syntax hints,
// and the same file as a corpus for vocabulary building.
#include "fuzz/fuzz_support.h"

#include "models/text/syntax_hints.h"
#include "models/text/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("treebank.conllu", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    for (const auto& sentence : aw::read_conllu(path)) {
      (void)aw::sentence_text(sentence);
      const auto hints = aw::syntax_hints(sentence);
      for (size_t t = 0; t < hints.size(); ++t)
        if (hints[t] < 0 || hints[t] > static_cast<int64_t>(t)) std::abort();  // a hint points at or left of t
    }
  });
  aw::fuzz::parses_or_refuses([&] { (void)aw::build_word_vocabulary(path, 1); });
  return 0;
}
