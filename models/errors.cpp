// models/errors.cpp — helpers that build error messages.
#include "models/errors.h"

namespace aw {

void fail_in_file(const std::string& path, const std::string& message) {
  throw Error(path + ": " + message);
}

}  // namespace aw
