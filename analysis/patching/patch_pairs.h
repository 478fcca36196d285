// analysis/patching/patch_pairs.h — the prompts of activation patching: a TSV of
// clean<TAB>corrupted<TAB>answer<TAB>foil lines (IOI-style: "When Mary and John went to the store,
// John gave a drink to" / the same with other names / " Mary" / " John"), each tokenised by the
// model's tokenizer. The answer and the foil are written as the tokenizer should read them (a
// GPT-2-style BPE wants the leading space), and must each be one token; the clean and corrupted
// prompts must be of one token length, so that a head's output at position i in one run can stand in
// for the other's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

class Tokenizer;
class TranslationCodec;
struct LoadedModel;

struct PatchPair {
  std::vector<int64_t> clean, corrupted;  // token ids, the same length (a translation model's: the sources)
  int64_t answer = 0, foil = 0;
  int64_t line = 0;                       // 1-based line of the file
  std::vector<int64_t> target;            // a translation model's decoder input (start, the translation's
                                          // tokens), shared by both runs; empty for other models
};

// Reads `path` for a model of `positions` positions. Throws aw::Error naming the file and line for a
// line without four fields, an answer or foil of more or fewer than one token (naming its pieces),
// the same answer and foil, prompts of different token lengths, an empty prompt, a prompt longer than
// the positions, and a file with no pair; blank lines are skipped.
std::vector<PatchPair> read_patch_pairs(const std::string& path, const Tokenizer& tokenizer, int64_t positions);

// A translation model's pairs: clean source<TAB>corrupted source<TAB>translation<TAB>answer<TAB>foil lines.
// The sources are encoded as the encoder reads them (their tokens, then EOS) and must be of one length;
// the translation (which may be empty) is what the decoder has read, teacher-forced, and the answer and
// foil are one token each of the target side: the metric is logit(answer) − logit(foil) for the token
// after the translation. Refuses what read_patch_pairs does, the translation's length included.
std::vector<PatchPair> read_translation_pairs(const std::string& path, const TranslationCodec& codec, int64_t positions);

// The pairs as `loaded` reads them: read_translation_pairs for a translation model, else read_patch_pairs.
std::vector<PatchPair> read_model_pairs(const std::string& path, const LoadedModel& loaded);

}  // namespace aw
