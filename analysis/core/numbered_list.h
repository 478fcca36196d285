// analysis/core/numbered_list.h — the layers and heads a person names on a command line, numbered
// from 1 as in the CSVs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

// "1,3-5" → {0, 2, 3, 4}: numbers from 1 to `count`, single or as ranges, in any order, repeats
// merged. Throws aw::Error "<what>s 0: '0' is not a <what> from 1 to <count> …" (what = "layer",
// "head") for a number out of range, a reversed range or anything else. With `first` = 0 the numbers
// are 0-based (positions: "0,3-5" → {0, 3, 4, 5}, from 0 to count − 1).
std::vector<int64_t> parse_numbered_list(const std::string& spec, int64_t count, const std::string& what,
                                         int64_t first = 1);

}  // namespace aw
