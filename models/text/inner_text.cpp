// models/text/inner_text.cpp — see inner_text.h.
#include "models/text/inner_text.h"

#include "models/errors.h"

#include <algorithm>
#include <cstddef>

namespace aw {

Encoding encode_inner(const Tokenizer& tokenizer, const std::string& text) {
  auto encoding = tokenizer.encode(text);
  const auto added = tokenizer.encode("").ids;  // the template alone
  size_t before = 0;
  while (before < added.size() && before < encoding.ids.size() && encoding.ids[before] == added[before]) ++before;
  const size_t after = added.size() - before;
  if (before + after > encoding.ids.size() ||
      !std::equal(added.begin() + static_cast<std::ptrdiff_t>(before), added.end(),
                  encoding.ids.end() - static_cast<std::ptrdiff_t>(after)))
    return encoding;
  auto cut = [&](auto& items) {
    if (items.size() != encoding.ids.size()) return;
    items.erase(items.end() - static_cast<std::ptrdiff_t>(after), items.end());
    items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(before));
  };
  cut(encoding.tokens), cut(encoding.type_ids), cut(encoding.ids);  // ids last: the others compare against its size
  return encoding;
}

std::string quoted_pieces(const Encoding& encoding) {
  std::string pieces;
  for (size_t i = 0; i < encoding.tokens.size(); ++i) pieces += (i ? ", " : "") + quoted_excerpt(encoding.tokens[i]);
  return pieces;
}

}  // namespace aw
