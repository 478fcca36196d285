// fuzz/fuzz_translation_pairs.cpp — translation pair files (source<TAB>target) and their split grouped by
// source sentence.
#include "fuzz/fuzz_support.h"

#include "models/text/data_split.h"
#include "models/translation/translation_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = aw::fuzz::scratch_file("pairs.tsv", aw::fuzz::bytes(data, size));
  aw::fuzz::parses_or_refuses([&] { (void)aw::read_translation_pairs(path); });
  aw::fuzz::parses_or_refuses([&] { (void)aw::split_lines_grouped_by_source(path, 7, 80, 10); });
  return 0;
}
