// analysis/patching/patch_pairs.cpp — see patch_pairs.h.
#include "analysis/patching/patch_pairs.h"

#include "models/errors.h"
#include "models/text/split_fields.h"
#include "models/text/tokenizer.h"

#include <algorithm>
#include <cstddef>
#include <fstream>

namespace aw {
namespace {

// `encoding` without the special tokens the tokenizer adds around any text (Llama 2's <s>, BERT's
// [CLS] … [SEP]): those an empty text encodes to, found at its start and end.
Encoding without_added_tokens(const Tokenizer& tokenizer, Encoding encoding) {
  const auto added = tokenizer.encode("").ids;
  size_t before = 0;
  while (before < added.size() && before < encoding.ids.size() && encoding.ids[before] == added[before]) ++before;
  const size_t after = added.size() - before;
  if (before + after > encoding.ids.size() ||
      !std::equal(added.begin() + static_cast<std::ptrdiff_t>(before), added.end(),
                  encoding.ids.end() - static_cast<std::ptrdiff_t>(after)))
    return encoding;
  auto cut = [&](auto& items) {
    items.erase(items.end() - static_cast<std::ptrdiff_t>(after), items.end());
    items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(before));
  };
  if (encoding.tokens.size() == encoding.ids.size()) cut(encoding.tokens);
  cut(encoding.ids);
  return encoding;
}

// The one token `text` reads as (besides what the tokenizer adds to every text), or an error naming
// the pieces it became.
int64_t one_token(const Tokenizer& tokenizer, const std::string& text, const std::string& what,
                  const std::string& where) {
  const auto encoding = without_added_tokens(tokenizer, tokenizer.encode(text));
  if (encoding.ids.size() == 1) return encoding.ids.front();
  std::string pieces;
  for (size_t i = 0; i < encoding.tokens.size(); ++i) pieces += (i ? ", " : "") + quoted_excerpt(encoding.tokens[i]);
  throw Error(where + ": the " + what + " " + quoted_excerpt(text) + " is " + std::to_string(encoding.ids.size()) +
              " tokens" + (pieces.empty() ? std::string() : " (" + pieces + ")") + ": patching needs one");
}

}  // namespace

std::vector<PatchPair> read_patch_pairs(const std::string& path, const Tokenizer& tokenizer, int64_t positions) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_in_file(path, "cannot be read (" + system_error() + ")");
  std::vector<PatchPair> pairs;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    require_line_length(path, static_cast<size_t>(number), line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto where = path + ":" + std::to_string(number);
    const auto fields = split_fields(line, '\t');
    if (fields.size() != 4)
      throw Error(where + ": expected clean<TAB>corrupted<TAB>answer<TAB>foil, got " + std::to_string(fields.size()) +
                  " field" + (fields.size() == 1 ? "" : "s"));
    PatchPair pair;
    pair.line = number;
    pair.clean = tokenizer.encode(fields[0]).ids;
    pair.corrupted = tokenizer.encode(fields[1]).ids;
    if (pair.clean.empty() || pair.corrupted.empty()) throw Error(where + ": an empty prompt");
    if (pair.clean.size() != pair.corrupted.size())
      throw Error(where + ": the clean prompt is " + std::to_string(pair.clean.size()) + " tokens and the corrupted " +
                  std::to_string(pair.corrupted.size()) + ": patching needs prompts of one length");
    if (static_cast<int64_t>(pair.clean.size()) > positions)
      throw Error(where + ": the prompts are " + std::to_string(pair.clean.size()) + " tokens; the model allows " +
                  std::to_string(positions) + " positions");
    pair.answer = one_token(tokenizer, fields[2], "answer", where);
    pair.foil = one_token(tokenizer, fields[3], "foil", where);
    if (pair.answer == pair.foil)
      throw Error(where + ": the answer and the foil are the same token (" + quoted_excerpt(fields[2]) + ")");
    pairs.push_back(std::move(pair));
  }
  if (pairs.empty()) fail_in_file(path, "holds no clean<TAB>corrupted<TAB>answer<TAB>foil line");
  return pairs;
}

}  // namespace aw
