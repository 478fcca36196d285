// analysis/patching/patch_pairs.cpp — see patch_pairs.h.
#include "analysis/patching/patch_pairs.h"

#include "models/checkpoint/checkpoint.h"
#include "models/errors.h"
#include "models/text/inner_text.h"
#include "models/text/split_fields.h"
#include "models/text/tokenizer.h"
#include "models/translation/translation_codec.h"

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

// Each non-blank line of `path` split at tabs into `expected` fields (`layout` names them), made a pair
// by `read`, which the prompts' checks then follow.
template <typename Read>
std::vector<PatchPair> read_pairs(const std::string& path, size_t expected, const std::string& layout,
                                  int64_t positions, const Read& read) {
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
    if (fields.size() != expected)
      throw Error(where + ": expected " + layout + ", got " + std::to_string(fields.size()) + " field" +
                  (fields.size() == 1 ? "" : "s"));
    PatchPair pair = read(fields, where);
    pair.line = number;
    if (pair.clean.empty() || pair.corrupted.empty()) throw Error(where + ": an empty prompt");
    if (pair.clean.size() != pair.corrupted.size())
      throw Error(where + ": the clean prompt is " + std::to_string(pair.clean.size()) + " tokens and the corrupted " +
                  std::to_string(pair.corrupted.size()) + ": patching needs prompts of one length");
    if (static_cast<int64_t>(pair.clean.size()) > positions)
      throw Error(where + ": the prompts are " + std::to_string(pair.clean.size()) + " tokens; the model allows " +
                  std::to_string(positions) + " positions");
    if (static_cast<int64_t>(pair.target.size()) > positions)
      throw Error(where + ": the translation is " + std::to_string(pair.target.size()) +
                  " tokens with the decoder's start; the model allows " + std::to_string(positions) + " positions");
    if (pair.answer == pair.foil)
      throw Error(where + ": the answer and the foil are the same token (" + quoted_excerpt(fields[expected - 2]) + ")");
    pairs.push_back(std::move(pair));
  }
  if (pairs.empty()) fail_in_file(path, "holds no " + layout + " line");
  return pairs;
}

}  // namespace

std::vector<PatchPair> read_patch_pairs(const std::string& path, const Tokenizer& tokenizer, int64_t positions) {
  return read_pairs(path, 4, "clean<TAB>corrupted<TAB>answer<TAB>foil", positions,
                    [&](const std::vector<std::string>& fields, const std::string& where) {
                      PatchPair pair;
                      pair.clean = tokenizer.encode(fields[0]).ids;
                      pair.corrupted = tokenizer.encode(fields[1]).ids;
                      pair.answer = one_token(tokenizer, fields[2], "answer", where);
                      pair.foil = one_token(tokenizer, fields[3], "foil", where);
                      return pair;
                    });
}

std::vector<PatchPair> read_translation_pairs(const std::string& path, const TranslationCodec& codec, int64_t positions) {
  const auto& source = codec.source_tokenizer();
  const auto& target = codec.target_tokenizer();
  return read_pairs(path, 5, "clean source<TAB>corrupted source<TAB>translation<TAB>answer<TAB>foil", positions,
                    [&](const std::vector<std::string>& fields, const std::string& where) {
                      PatchPair pair;
                      // An empty source stays empty (the check above names it) rather than only its EOS.
                      if (!source.encode(fields[0]).ids.empty()) pair.clean = codec.source_ids(fields[0]);
                      if (!source.encode(fields[1]).ids.empty()) pair.corrupted = codec.source_ids(fields[1]);
                      pair.target = codec.decoder_ids(fields[2]);
                      pair.target.pop_back();  // the EOS: the answer is the token after the translation
                      pair.answer = one_token(target, fields[3], "answer", where);
                      pair.foil = one_token(target, fields[4], "foil", where);
                      return pair;
                    });
}

std::vector<PatchPair> read_model_pairs(const std::string& path, const LoadedModel& loaded) {
  if (!loaded.config.is_translation()) return read_patch_pairs(path, *loaded.tokenizer, loaded.config.max_positions);
  const TranslationCodec codec(loaded.config, loaded.tokenizer, loaded.target_tokenizer);
  return read_translation_pairs(path, codec, loaded.config.max_positions);
}

}  // namespace aw
