// analysis/core/numbered_list.cpp — see numbered_list.h.
#include "analysis/core/numbered_list.h"

#include "models/errors.h"
#include "models/parse_number.h"

#include <set>
#include <sstream>

namespace aw {

std::vector<int64_t> parse_numbered_list(const std::string& spec, int64_t count, const std::string& what,
                                         int64_t first) {
  const auto refuse = [&](const std::string& part) -> Error {
    return Error(what + "s " + spec + ": '" + part + "' is not a " + what + " from " + std::to_string(first) + " to " +
                 std::to_string(first + count - 1) + " or a range of them (\"" + (first == 1 ? "1,3-5" : "0,3-5") + "\")");
  };
  std::set<int64_t> chosen;
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto dash = part.find('-', 1);
    int64_t low = 0, high = 0;
    if (!parse_integer(part.substr(0, dash), low) ||
        (dash != std::string::npos && !parse_integer(part.substr(dash + 1), high)))
      throw refuse(part);
    if (dash == std::string::npos) high = low;
    if (low < first || high >= first + count || low > high) throw refuse(part);
    for (int64_t number = low; number <= high; ++number) chosen.insert(number - first);
  }
  if (chosen.empty()) throw refuse(spec);
  return {chosen.begin(), chosen.end()};
}

}  // namespace aw
