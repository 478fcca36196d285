// models/errors.h — the one exception type for bad input anywhere in the workbench.
// Its message is the single line a user sees: what file (or option), and what is wrong.
#pragma once

#include <stdexcept>
#include <string>

namespace aw {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "path: message" — the form every file-related error takes.
[[noreturn]] void fail_in_file(const std::string& path, const std::string& message);

// Shapes in messages: "[768, 2304]".
template <typename Container>
std::string shape_string(const Container& dims) {
  std::string text = "[";
  bool first = true;
  for (auto d : dims) {
    if (!first) text += ", ";
    text += std::to_string(d);
    first = false;
  }
  return text + "]";
}

}  // namespace aw
