// models/text/tokenizer_gpt2.cpp — GPT-2's tokenizer files: vocab.json + merges.txt read into a
// ByteLevelBpeSpec (the tokenizer itself is byte_level_bpe.cpp), with GPT-2's pre-tokenisation
// pattern. From these files no special tokens are added around a text, and "<|endoftext|>" written in
// it is one token, as Hugging Face's GPT2Tokenizer reads it (its bos, eos and unk token); so are BART's
// <s>, </s>, <unk>, <pad> and <mask> (a WikiText "<unk>" stays one token).
#include "models/text/tokenizer.h"

#include "models/errors.h"
#include "models/text/byte_level_bpe.h"

#include <algorithm>
#include <fstream>

namespace aw {
namespace {

std::vector<std::string> split_on_blanks(const std::string& line) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    const size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
    if (pos > start) words.push_back(line.substr(start, pos - start));
  }
  return words;
}

// merges.txt: an optional "#version: …" first line, then one merge per line, "left right",
// earliest line first merged. Blank lines are skipped.
std::vector<tokenizer_detail::ByteLevelBpeSpec::MergeEntry> read_merges_txt(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (missing or not a file)");
  std::vector<tokenizer_detail::ByteLevelBpeSpec::MergeEntry> merges;
  std::string line;
  size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    require_line_length(path, line_number, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1 && line.rfind("#version", 0) == 0) continue;
    const auto words = split_on_blanks(line);
    if (words.empty()) continue;
    const std::string where = "line " + std::to_string(line_number) + ": ";
    if (words.size() != 2)
      fail_in_file(path, where + "expected two tokens separated by a space, found " + std::to_string(words.size()) +
                             " (" + quoted_excerpt(line) + ")");
    merges.push_back({words[0], words[1], where});
  }
  return merges;
}

}  // namespace

namespace tokenizer_detail {

// With \s spelt \p{White_Space}: under PCRE2_UCP, \s also matches U+180E, which the `regex` module
// Hugging Face uses does not count as space.
const char* const kGpt2PiecePattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+)"
    R"(|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+)";

}  // namespace tokenizer_detail

std::unique_ptr<Tokenizer> load_gpt2_tokenizer(const std::string& vocab_json_path, const std::string& merges_path) {
  tokenizer_detail::ByteLevelBpeSpec spec;
  spec.kind = "gpt2_bpe";
  spec.vocab_source = vocab_json_path;
  spec.spellings = tokenizer_detail::read_vocab_json(vocab_json_path, "token");
  spec.merges_source = merges_path;
  spec.merges = read_merges_txt(merges_path);
  spec.steps = {tokenizer_detail::ByteLevelBpeSpec::Step::split_by(tokenizer_detail::kGpt2PiecePattern, false)};
  // The special tokens GPT2Tokenizer (<|endoftext|>) and BartTokenizer (the others) match in a text,
  // where the vocabulary has them.
  for (const char* content : {"<|endoftext|>", "<s>", "</s>", "<unk>", "<pad>", "<mask>"}) {
    const auto found = std::find(spec.spellings.begin(), spec.spellings.end(), content);
    if (found == spec.spellings.end()) continue;
    tokenizer_detail::ByteLevelBpeSpec::AddedToken special;
    special.content = content;
    special.id = found - spec.spellings.begin();
    special.special = true;
    spec.added.push_back(special);
  }
  return tokenizer_detail::make_byte_level_bpe(std::move(spec));
}

}  // namespace aw
