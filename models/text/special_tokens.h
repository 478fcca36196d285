// models/text/special_tokens.h — whether special tokens written in a text ("[SEP]", "<|endoftext|>",
// "<unk>") are read as themselves, one token each, as Hugging Face reads them (the default), or as
// plain text (attention-cli --special-tokens-as-text). A process-wide switch, as the attention path's.
#pragma once

namespace aw {

void set_special_tokens_in_text(bool recognised);
bool special_tokens_in_text();

}  // namespace aw
