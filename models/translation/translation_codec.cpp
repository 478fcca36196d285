// models/translation/translation_codec.cpp — see translation_codec.h.
#include "models/translation/translation_codec.h"

#include "models/errors.h"

namespace aw {

TranslationCodec::TranslationCodec(const ModelConfig& config, std::shared_ptr<const Tokenizer> source,
                                   std::shared_ptr<const Tokenizer> target)
    : part_(config.translation), source_(std::move(source)), target_(std::move(target)) {
  if (!config.is_translation()) throw Error(config.family_name() + " is not a translation model");
  if (!target_) target_ = source_;
}

std::vector<int64_t> TranslationCodec::tokens_with_specials(const Tokenizer& tokenizer, const std::string& text) const {
  const auto encoding = tokenizer.encode(text);
  std::vector<int64_t> ids;
  if (part_.bos_id >= 0 && part_.bos_id != part_.decoder_start_id) ids.push_back(part_.bos_id);
  ids.insert(ids.end(), encoding.ids.begin(), encoding.ids.end());
  ids.push_back(part_.eos_id);
  return ids;
}

std::vector<int64_t> TranslationCodec::source_ids(const std::string& text) const {
  if (source_->encode(text).ids.empty()) throw Error("the source is empty (no tokens to translate)");
  return tokens_with_specials(*source_, text);
}

std::vector<std::string> TranslationCodec::source_tokens(const std::string& text) const {
  std::vector<std::string> tokens;
  for (const auto id : source_ids(text)) tokens.push_back(source_->token_text(id));
  return tokens;
}

std::vector<int64_t> TranslationCodec::decoder_ids(const std::string& text) const {
  auto ids = tokens_with_specials(*target_, text);
  ids.insert(ids.begin(), part_.decoder_start_id);
  return ids;
}

std::vector<std::string> TranslationCodec::target_tokens(const std::vector<int64_t>& ids) const {
  std::vector<std::string> tokens;
  for (const auto id : ids) tokens.push_back(target_->token_text(id));
  return tokens;
}

bool TranslationCodec::is_special(int64_t id) const {
  return id == part_.pad_id || id == part_.eos_id || id == part_.bos_id || id == part_.decoder_start_id;
}

std::string TranslationCodec::text(const std::vector<int64_t>& ids) const {
  std::vector<int64_t> kept;
  for (const auto id : ids)
    if (!is_special(id)) kept.push_back(id);
  return target_->decode(kept);
}

}  // namespace aw
