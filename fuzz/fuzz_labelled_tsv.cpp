// fuzz/fuzz_labelled_tsv.cpp — labelled classifier files (label<TAB>text[<TAB>text_b]): the class
// names, the examples, and the seeded train/valid/test split.
#include "fuzz/fuzz_support.h"

#include "models/text/corpus.h"
#include "models/text/data_split.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("reviews.tsv", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] {
    const auto names = aw::read_label_names(path);
    for (const auto& example : aw::read_labelled_file(path, names))
      if (example.label < 0 || example.label >= static_cast<int64_t>(names.size())) std::abort();
  });
  aw::fuzz::parses_or_refuses([&] { (void)aw::read_labelled_file(path, {"1", "2", "3", "4", "5"}); });
  aw::fuzz::parses_or_refuses([&] {
    const auto split = aw::split_labelled_lines(path, 7, 80, 10);
    (void)aw::parse_labelled_text(split.valid.empty() ? std::string() : split.valid.front(), path, {"neg", "pos"});
  });
  return 0;
}
