// models/translation/translation_codec.h — text ↔ ids for a translation model, with the special tokens
// its family expects: the source is the tokens then EOS (BART: BOS first), and the decoder reads the
// decoder-start token, the target's tokens and EOS (BART: start, BOS, tokens, EOS), as Hugging Face's
// tokenizers and shift_tokens_right lay them out. Generated ids turn back into text without the
// special tokens.
#pragma once

#include "models/nn/model_config.h"
#include "models/text/tokenizer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace aw {

class TranslationCodec {
 public:
  // `target` may be the same tokenizer as `source` (joint vocabularies).
  TranslationCodec(const ModelConfig& config, std::shared_ptr<const Tokenizer> source,
                   std::shared_ptr<const Tokenizer> target);

  // The encoder's ids of `text` (its tokens, then EOS); throws aw::Error "the source is empty" for
  // text without tokens.
  std::vector<int64_t> source_ids(const std::string& text) const;
  // Readable labels of the source ids (what a heatmap's axis shows), EOS included.
  std::vector<std::string> source_tokens(const std::string& text) const;
  // The decoder's sequence for a reference translation: start, tokens, EOS.
  std::vector<int64_t> decoder_ids(const std::string& text) const;
  // Labels of decoder ids (start token included).
  std::vector<std::string> target_tokens(const std::vector<int64_t>& ids) const;
  // Text of generated ids (after the start token); special tokens are skipped.
  std::string text(const std::vector<int64_t>& ids) const;

  const Tokenizer& source_tokenizer() const { return *source_; }
  const Tokenizer& target_tokenizer() const { return *target_; }

 private:
  std::vector<int64_t> tokens_with_specials(const Tokenizer& tokenizer, const std::string& text) const;
  bool is_special(int64_t id) const;

  TranslationPart part_;
  std::shared_ptr<const Tokenizer> source_, target_;
};

}  // namespace aw
