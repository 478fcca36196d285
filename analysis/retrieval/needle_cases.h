// analysis/retrieval/needle_cases.h — the needle-in-a-haystack inputs of the retrieval-head score (Wu et
// al. 2024, "Retrieval head mechanistically explains long-context factuality"): a needle sentence
// inserted at a chosen depth into a haystack of a chosen length cut from a text, followed by a prompt
// and the needle's first tokens (the cue), after which the model should repeat the rest of the needle.
// Each case is one sequence of exactly `length` tokens:
//   haystack[0, a) · needle · haystack[a, a + b) · prompt · needle[0, cue) · needle[cue, m)
// with a = round(depth · (a + b)); the last part is teacher-forced (see retrieval_heads.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

struct NeedleSettings {
  std::vector<int64_t> lengths;   // tokens per case
  std::vector<double> depths;     // where the needle goes in the haystack, 0 = first, 1 = last
  int64_t cue = 2;                // needle tokens given after the prompt
  std::vector<int64_t> prompt;    // tokens between the haystack and the cue (may be empty)
};

struct NeedleCase {
  int64_t length = 0;
  double depth = 0;
  int64_t needle = 0;              // index into the needles
  std::vector<int64_t> ids;        // `length` tokens
  int64_t needle_start = 0;        // position of the needle's first token in the haystack
  int64_t copy_start = 0;          // position of the needle's first token after the prompt
  int64_t needle_length = 0;       // m
};

// Every (length, depth, needle) case, in that order. Throws aw::Error when a needle has no more
// tokens than the cue (nothing to copy), or when a needle, the prompt and the needle again do not
// fit a length ("… do not fit 128 tokens"), or the haystack is shorter than a case needs.
std::vector<NeedleCase> needle_cases(const std::vector<int64_t>& haystack, const std::vector<std::vector<int64_t>>& needles,
                                     const NeedleSettings& settings);

}  // namespace aw
