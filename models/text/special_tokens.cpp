// models/text/special_tokens.cpp — see special_tokens.h.
#include "models/text/special_tokens.h"

#include <atomic>

namespace aw {
namespace {

std::atomic<bool> recognised{true};

}  // namespace

void set_special_tokens_in_text(bool value) { recognised = value; }
bool special_tokens_in_text() { return recognised; }

}  // namespace aw
