// tests/support/write_fixtures.cpp — writes the tiny checkpoints and texts the CLI end-to-end tests run on
// (a ctest fixture): <out>/tiny_lm, <out>/tiny_bet_sf, a BERT classifier <out>/tiny_bert_classifier, a
// BERT encoder without a head <out>/tiny_bert_encoder, <out>/tiny_lama, plain text <out>/corpus.txt and
// labelled examples <out>/labelled.tsv (BERT, pos/neg) and <out>/labelled_lama.tsv (LAMA, ratings 1–3), and
// a Hub cache <out>/hub holding tiny_lm as aw-test/tiny_lm (refs/main, a snapshot linking into blobs/).
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
  // The Hub cache's layout (docs/models.md): each file a blob, linked from the snapshot of refs/main's commit.
  namespace fs = std::filesystem;
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  const fs::path repository = fs::path(out) / "hub" / "models--aw-test--tiny_lm";
  fs::remove_all(repository);
  fs::create_directories(repository / "blobs");
  fs::create_directories(repository / "snapshots" / commit);
  fs::create_directories(repository / "refs");
  aw::test::write_file((repository / "refs" / "main").string(), commit);
  int index = 0;
  for (const auto& entry : fs::directory_iterator(out + "/tiny_lm")) {
    const auto blob = std::string(63, 'a') + std::to_string(index++ % 10);
    fs::copy_file(entry.path(), repository / "blobs" / blob);
    fs::create_symlink(fs::path("../../blobs") / blob, repository / "snapshots" / commit / entry.path().filename());
  }
  return 0;
}
