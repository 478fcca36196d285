// analysis/core/text_settings.cpp — see text_settings.h.
#include "analysis/core/text_settings.h"

#include "analysis/core/setting_fields.h"
#include "models/errors.h"
#include "models/text/corpus.h"
#include "models/text/inner_text.h"

namespace aw {

std::vector<SettingField> one_text_fields() {
  return {text_field("text", "Text", "", "the text read", "\"…\""),
          path_field("text-file", "Text file", false, "a UTF-8 text file read whole instead of --text")};
}

std::string one_text(const SettingValues& settings) {
  if (settings.text("text").empty() == settings.text("text-file").empty())
    throw SettingError("", "give either --text \"…\" or --text-file FILE");
  if (!settings.text("text").empty()) return settings.text("text");
  const auto path = settings.text("text-file");
  auto text = read_whole_file(path);
  if (text.empty()) fail_in_file(path, "the file is empty");
  return text;
}

int64_t one_token_target(const Tokenizer& tokenizer, const std::string& target, const std::string& model,
                         const std::string& why) {
  const auto encoding = encode_inner(tokenizer, target);
  if (encoding.ids.size() != 1) {
    const auto pieces = quoted_pieces(encoding);
    throw SettingError("target", quoted_excerpt(target) + " is " + std::to_string(encoding.ids.size()) + " tokens for " +
                                     model + (pieces.empty() ? "" : " (" + pieces + ")") + "; " + why);
  }
  return encoding.ids.front();
}

}  // namespace aw
