// analysis/retrieval/needle_cases.cpp — see needle_cases.h.
#include "analysis/retrieval/needle_cases.h"

#include "models/errors.h"

#include <cmath>

namespace aw {

std::vector<NeedleCase> needle_cases(const std::vector<int64_t>& haystack, const std::vector<std::vector<int64_t>>& needles,
                                     const NeedleSettings& settings) {
  std::vector<NeedleCase> cases;
  for (const int64_t length : settings.lengths)
    for (const double depth : settings.depths)
      for (size_t index = 0; index < needles.size(); ++index) {
        const auto& needle = needles[index];
        const auto m = static_cast<int64_t>(needle.size());
        if (m <= settings.cue)
          throw Error("needle " + std::to_string(index + 1) + " has " + std::to_string(m) +
                      " tokens, no more than the cue's " + std::to_string(settings.cue) + ": nothing is left to copy");
        const int64_t filler = length - 2 * m - static_cast<int64_t>(settings.prompt.size());
        if (filler < 0)
          throw Error("needle " + std::to_string(index + 1) + " (" + std::to_string(m) + " tokens), the prompt (" +
                      std::to_string(settings.prompt.size()) + ") and the needle again do not fit " +
                      std::to_string(length) + " tokens");
        if (static_cast<int64_t>(haystack.size()) < filler)
          throw Error("the haystack text has " + std::to_string(haystack.size()) + " tokens; a case of " +
                      std::to_string(length) + " tokens needs " + std::to_string(filler));
        const auto before = static_cast<int64_t>(std::llround(depth * static_cast<double>(filler)));
        NeedleCase made;
        made.length = length;
        made.depth = depth;
        made.needle = static_cast<int64_t>(index);
        made.needle_length = m;
        made.ids.assign(haystack.begin(), haystack.begin() + before);
        made.needle_start = before;
        made.ids.insert(made.ids.end(), needle.begin(), needle.end());
        made.ids.insert(made.ids.end(), haystack.begin() + before, haystack.begin() + filler);
        made.ids.insert(made.ids.end(), settings.prompt.begin(), settings.prompt.end());
        made.copy_start = static_cast<int64_t>(made.ids.size());
        made.ids.insert(made.ids.end(), needle.begin(), needle.end());
        cases.push_back(std::move(made));
      }
  return cases;
}

}  // namespace aw
