// models/text/inner_text.h — a text's tokens without what the tokenizer puts around every text (Llama
// 2's <s>, Llama 3's <|begin_of_text|>, BERT's [CLS] … [SEP]): what goes inside a longer sequence —
// a needle in a haystack, a prompt, a patched answer — as Hugging Face's add_special_tokens=False
// gives it.
#pragma once

#include "models/text/tokenizer.h"

#include <string>

namespace aw {

// `text` encoded, less the tokens an empty text encodes to (found at its start and end).
Encoding encode_inner(const Tokenizer& tokenizer, const std::string& text);

// "'Par', 'is'": the pieces of an encoding, quoted, for an error that says what a text became.
std::string quoted_pieces(const Encoding& encoding);

}  // namespace aw
