// models/text/hf_tokenizer.h — a Hugging Face tokenizer.json (the `tokenizers` library's format),
// for the BPE tokenizers of GPT-NeoX/Pythia, Qwen2, Llama 3 and SmolLM (byte-level) and of Llama 2
// and TinyLlama (SentencePiece-style, with byte fallback), and BERT's WordPiece.
#pragma once

#include "models/text/tokenizer.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace aw {

// Reads what the file describes and encodes as the library does with add_special_tokens=True:
// - normalizer: none, NFC, Prepend, Replace (of a string), or a Sequence of them;
// - pre_tokenizer: ByteLevel (with or without its regex, with or without a prefix space), Split
//   with a regex or string pattern and the Isolated behaviour, Metaspace, or a Sequence of them;
// - model: BPE, merges as "a b" strings or [a, b] pairs, ignore_merges; over byte symbols (with a
//   ByteLevel pre-tokenizer), or with byte_fallback over characters, unknown ones as <0xNN> bytes;
// - added_tokens matched in the text first (normalized ones in the normalized text), lstrip/rstrip;
// - post_processor: none, ByteLevel, TemplateProcessing (its single template's special tokens
//   around the text), or a Sequence of them; decoder: ByteLevel, or Replace/ByteFallback/Fuse/Strip
//   for byte_fallback models.
// - model Unigram (T5, XLM-R, mBART style): [piece, score] vocabulary, Viterbi segmentation, unk_id,
//   byte_fallback; a Metaspace decoder.
// A WordPiece model is read by load_wordpiece_json (models/text/wordpiece_spec.h: BERT-family folders).
// Anything else — a WordLevel model, a subword prefix, SentencePiece's Precompiled normalizer, another
// normalizer, pre-tokenizer, post-processor or decoder — is refused with one aw::Error naming the file
// and the feature, rather than tokenised wrongly.
std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string& tokenizer_json_path);
// The same from a tokenizer.json already in memory (a GGUF file's, built from its metadata); messages
// name `name` where they would name the file.
std::unique_ptr<Tokenizer> load_hf_tokenizer_json(nlohmann::json json, const std::string& name);

}  // namespace aw
