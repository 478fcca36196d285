// models/text/hf_tokenizer.h — a Hugging Face tokenizer.json (the `tokenizers` library's format),
// for the byte-level BPE tokenizers of GPT-NeoX/Pythia, Qwen2, Llama 3 and SmolLM.
#pragma once

#include "models/text/tokenizer.h"

#include <memory>
#include <string>

namespace aw {

// Reads what the file describes and encodes as the library does with add_special_tokens=True:
// - normalizer: none, NFC, or a Sequence of them;
// - pre_tokenizer: ByteLevel (with or without its regex, with or without a prefix space), Split
//   with a regex or string pattern and the Isolated behaviour, or a Sequence of them;
// - model: BPE over byte symbols, merges as "a b" strings or [a, b] pairs, ignore_merges;
// - added_tokens matched in the text first (normalized ones in the NFC text), lstrip/rstrip;
// - post_processor: none, ByteLevel, TemplateProcessing (its single template's special tokens
//   around the text), or a Sequence of them; decoder: none or ByteLevel.
// Anything else — a Unigram, WordPiece or WordLevel model, BPE with byte_fallback or a subword prefix
// (SentencePiece-style, Llama 2), another normalizer, pre-tokenizer or post-processor — is refused
// with one aw::Error naming the file and the feature, rather than tokenised wrongly.
std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string& tokenizer_json_path);

}  // namespace aw
