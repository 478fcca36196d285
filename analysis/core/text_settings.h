// analysis/core/text_settings.h — what the analyses that read one text share (logit-lens,
// token-attribution): the text from --text or --text-file, and a --target that must be one token.
#pragma once

#include "analysis/core/descriptor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aw {

class Tokenizer;

// The two fields one_text() reads: --text "…" and --text-file FILE.
std::vector<SettingField> one_text_fields();

// --text, or --text-file read whole; throws SettingError for neither or both, aw::Error naming the file
// for one that cannot be read or is empty.
std::string one_text(const SettingValues& settings);

// The one token `target` encodes to for `model`'s tokenizer (read as inner text: no special tokens);
// throws SettingError("target", "'x y' is 2 tokens for m ('x', 'y'); <why>") otherwise.
int64_t one_token_target(const Tokenizer& tokenizer, const std::string& target, const std::string& model,
                         const std::string& why);

}  // namespace aw
