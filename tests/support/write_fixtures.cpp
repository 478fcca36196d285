// tests/support/write_fixtures.cpp — writes the tiny checkpoints and texts the CLI end-to-end tests run on
// (a ctest fixture): <out>/tiny_lm, <out>/tiny_bet_sf, a BERT classifier <out>/tiny_bert_classifier, a
// BERT encoder without a head <out>/tiny_bert_encoder, <out>/tiny_lama, plain text <out>/corpus.txt and
// labelled examples <out>/labelled.tsv (BERT, pos/neg) and <out>/labelled_lama.tsv (LAMA, ratings 1–3).
#include "tests/support/test_support.h"

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
  aw::test::write_tiny_checkpoint(out + "/tiny_lama", aw::test::tiny_lama_config());
  // Labelled documents for the classifier commands: w2 occurs 5 times (3 × label 1, 2 × label 3).
  aw::test::write_file(out + "/labelled_lama.tsv",
                       "1\tw2 w3 w4 w2\n2\tw5 w6 w7\n3\tw2 w8 w9 w10 w11\n1\tw2 w3\n2\tw6 w7 w5 w4\n3\tw2 w12\n");
  aw::test::write_file(out + "/bad_label.tsv", "1\tw2 w3\n7\tw4 w5\n");
  std::filesystem::create_directories(out + "/empty_folder");
  return 0;
}
