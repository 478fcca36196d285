// analysis/patching/patch_pairs.cpp — see patch_pairs.h.
#include "analysis/patching/patch_pairs.h"

#include "models/errors.h"
#include "models/text/inner_text.h"
#include "models/text/split_fields.h"
#include "models/text/tokenizer.h"

#include <fstream>

namespace aw {
namespace {

// The one token `text` reads as (besides what the tokenizer adds to every text), or an error naming
// the pieces it became.
int64_t one_token(const Tokenizer& tokenizer, const std::string& text, const std::string& what,
                  const std::string& where) {
  const auto encoding = encode_inner(tokenizer, text);
  if (encoding.ids.size() == 1) return encoding.ids.front();
  const auto pieces = quoted_pieces(encoding);
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
