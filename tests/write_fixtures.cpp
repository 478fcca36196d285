// tests/write_fixtures.cpp — writes the tiny checkpoints and texts the CLI end-to-end tests run on
// (a ctest fixture): <out>/tiny_lm, <out>/tiny_bet_sf, a BERT classifier <out>/tiny_bert_classifier and
// a BERT encoder without a head <out>/tiny_bert_encoder, plain text <out>/corpus.txt and labelled
// examples <out>/labelled.tsv.
#include "tests/test_support.h"

#include <cstdio>
#include <filesystem>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_fixtures OUT_DIR\n");
    return 2;
  }
  const std::string out = argv[1];
  std::filesystem::create_directories(out);
  aw::test::write_tiny_checkpoint(out + "/tiny_lm", aw::test::tiny_config("transformer_lm"));
  aw::test::write_tiny_checkpoint(out + "/tiny_bet_sf", aw::test::tiny_config("bet_sf"));
  aw::test::write_tiny_bert_checkpoint(out + "/tiny_bert_classifier", true);
  aw::test::write_tiny_bert_checkpoint(out + "/tiny_bert_encoder", false);
  aw::test::write_file(out + "/labelled.tsv", "pos\tthe film was good\nneg\tthe plot was bad\nneg\tnot very good .\n");
  aw::test::write_file(out + "/corpus.txt", "w2 w3 w4 w5 w6 w7\nw8 w9 w10 w2 w3 unknown w4\n\nw5 w6 w7 w8\n");
  aw::test::write_file(out + "/empty.txt", "\n\n");
  std::filesystem::create_directories(out + "/empty_folder");
  return 0;
}
