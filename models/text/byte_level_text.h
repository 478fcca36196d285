// models/text/byte_level_text.h — GPT-2's byte ↔ symbol table and the text of byte-level tokens.
// Byte-level BPE spells each byte as a printable symbol (GPT-2's bytes_to_unicode: "Ġ" for a space),
// which is how vocab.json and merges.txt spell tokens; these turn spellings back into bytes and bytes
// into text that stays valid UTF-8. Internal to models/text (byte_level_bpe.cpp).
#pragma once

#include <string>

namespace aw::tokenizer_detail {

// The symbol standing for `byte`, as UTF-8 ("Ġ" for 0x20).
std::string symbol_utf8(unsigned char byte);

// The byte a symbol stands for, or -1 for a code point that is no byte's symbol.
int byte_of_symbol(char32_t symbol);

// A vocab.json spelling ("Ġthe") → readable text (" the"): whole UTF-8 characters as they are, a byte
// that is not part of a whole character as the four characters \xNN. Code points that are no byte's
// symbol (none in GPT-2's own files) are kept as they are.
std::string readable_text(const std::string& spelling);

// Bytes → text, each maximal ill-formed stretch (the longest start of a well-formed sequence, or one
// byte) replaced by U+FFFD, as Python's bytes.decode("utf-8", errors="replace").
std::string replace_ill_formed_utf8(const std::string& bytes);

}  // namespace aw::tokenizer_detail
