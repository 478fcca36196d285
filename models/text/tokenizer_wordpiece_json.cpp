// models/text/tokenizer_wordpiece_json.cpp — a tokenizer.json whose model is WordPiece, read into a
// WordPieceSpec (models/text/wordpiece_spec.h) the way the `tokenizers` library reads it.
#include "models/errors.h"
#include "models/json_input.h"  // json_excerpt
#include "models/text/wordpiece_spec.h"

#include <nlohmann/json.hpp>

namespace aw {
namespace {

class WordPieceJsonReader {
 public:
  WordPieceJsonReader(std::string path, const nlohmann::json& json) : path_(std::move(path)), json_(json) {
    if (!json_.is_object()) fail("is not a JSON object (a tokenizer.json is one)");
    spec_.source = path_;
  }

  WordPieceSpec read() {
    read_model(part("model"));
    read_normalizer(part("normalizer"));
    const auto pre = part("pre_tokenizer");
    if (!pre.is_null() && type_of(pre, "the pre_tokenizer") != "BertPreTokenizer")
      unsupported("the pre_tokenizer " + type_of(pre, "the pre_tokenizer"));
    read_post_processor(part("post_processor"));
    read_added_tokens(part("added_tokens"));
    return std::move(spec_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { fail_in_file(path_, problem); }
  [[noreturn]] void unsupported(const std::string& what) const {
    fail(what + " is not supported with a WordPiece model (BERT's: BertNormalizer, BertPreTokenizer, a [CLS] … [SEP] "
                "template)");
  }
  nlohmann::json part(const std::string& key) const { return json_.value(key, nlohmann::json()); }
  std::string type_of(const nlohmann::json& part, const std::string& what) const {
    if (!part.is_object() || !part.contains("type") || !part.at("type").is_string()) fail(what + " has no type");
    return part.at("type").get<std::string>();
  }
  bool flag(const nlohmann::json& part, const std::string& key, bool fallback) const {
    if (!part.contains(key) || part.at(key).is_null()) return fallback;
    if (!part.at(key).is_boolean()) fail("\"" + key + "\" is " + json_excerpt(part.at(key)) + ", not true or false");
    return part.at(key).get<bool>();
  }
  std::string text(const nlohmann::json& part, const std::string& key, const std::string& fallback) const {
    if (!part.contains(key) || part.at(key).is_null()) return fallback;
    if (!part.at(key).is_string()) fail("\"" + key + "\" is " + json_excerpt(part.at(key)) + ", not a string");
    return part.at(key).get<std::string>();
  }

  void read_model(const nlohmann::json& model) {
    if (type_of(model, "the model") != "WordPiece") fail("the model is not WordPiece");
    const auto& vocab = model.value("vocab", nlohmann::json());
    if (!vocab.is_object() || vocab.empty()) fail("model.vocab is not a {token: id} object");
    spec_.tokens.assign(vocab.size(), std::string());
    std::vector<bool> seen(vocab.size(), false);
    for (const auto& [token, id] : vocab.items()) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= static_cast<int64_t>(vocab.size()) ||
          seen[id.get<size_t>()])
        fail("model.vocab gives " + quoted_excerpt(token) + " the id " + json_excerpt(id) + " (ids must be 0 … " +
             std::to_string(vocab.size() - 1) + ", each once)");
      spec_.tokens[id.get<size_t>()] = token;
      seen[id.get<size_t>()] = true;
    }
    spec_.unk = text(model, "unk_token", "[UNK]");
    spec_.continuation = text(model, "continuing_subword_prefix", "##");
    if (model.contains("max_input_chars_per_word")) {
      const auto& limit = model.at("max_input_chars_per_word");
      if (!limit.is_number_integer() || limit.get<int64_t>() < 1) fail("max_input_chars_per_word is " + json_excerpt(limit));
      spec_.max_word_characters = limit.get<int64_t>();
    }
  }

  void read_normalizer(const nlohmann::json& normalizer) {
    if (normalizer.is_null()) {  // none: text as written
      spec_.lowercase = spec_.strip_accents = spec_.handle_chinese_chars = false;
      return;
    }
    const auto type = type_of(normalizer, "the normalizer");
    if (type != "BertNormalizer") unsupported("the normalizer " + type);
    if (!flag(normalizer, "clean_text", true)) unsupported("BertNormalizer with clean_text false");
    spec_.handle_chinese_chars = flag(normalizer, "handle_chinese_chars", true);
    spec_.lowercase = flag(normalizer, "lowercase", true);
    spec_.strip_accents = flag(normalizer, "strip_accents", spec_.lowercase);  // null: as lowercase
  }

  // [CLS] text [SEP]: BertProcessing's cls and sep, or a TemplateProcessing single template of
  // special token, the text, special token.
  void read_post_processor(const nlohmann::json& processor) {
    if (processor.is_null()) unsupported("no post_processor");
    const auto type = type_of(processor, "the post_processor");
    auto token_of = [&](const nlohmann::json& pair, const std::string& what) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) fail(what + " is " + json_excerpt(pair));
      return pair[0].get<std::string>();
    };
    if (type == "BertProcessing") {
      spec_.cls = token_of(processor.value("cls", nlohmann::json()), "BertProcessing's cls");
      spec_.sep = token_of(processor.value("sep", nlohmann::json()), "BertProcessing's sep");
      return;
    }
    if (type != "TemplateProcessing") unsupported("the post_processor " + type);
    const auto single = processor.value("single", nlohmann::json());
    const bool shape = single.is_array() && single.size() == 3 && single[0].contains("SpecialToken") &&
                       single[1].contains("Sequence") && single[2].contains("SpecialToken");
    if (!shape) unsupported("a template other than special token, text, special token (" + json_excerpt(single) + ")");
    spec_.cls = text(single[0].at("SpecialToken"), "id", "");
    spec_.sep = text(single[2].at("SpecialToken"), "id", "");
  }

  // Added tokens are matched in the text as written (special ones, and any whose normalized is false).
  void read_added_tokens(const nlohmann::json& added) {
    if (added.is_null()) return;
    if (!added.is_array()) fail("added_tokens is " + json_excerpt(added) + ", not a list");
    for (const auto& entry : added) {
      const auto content = text(entry, "content", "");
      if (content.empty()) fail("an added token has no content");
      if (flag(entry, "normalized", false) && !flag(entry, "special", false))
        unsupported("the added token " + quoted_excerpt(content) + " matched after normalisation");
      const auto& id = entry.value("id", nlohmann::json());
      if (!id.is_number_integer() || id.get<int64_t>() < 0) fail("the added token " + quoted_excerpt(content) + " has no id");
      const auto index = id.get<size_t>();
      if (index == spec_.tokens.size()) spec_.tokens.push_back(content);  // a token beyond the model's vocabulary
      else if (index > spec_.tokens.size() || spec_.tokens[index] != content)
        fail("the added token " + quoted_excerpt(content) + "'s id " + std::to_string(index) + " is " +
             (index > spec_.tokens.size() ? "past the vocabulary" : "another token's"));
      spec_.specials.push_back(content);
    }
  }

  std::string path_;
  nlohmann::json json_;
  WordPieceSpec spec_;
};

}  // namespace

std::unique_ptr<Tokenizer> load_wordpiece_json(const std::string& path, const nlohmann::json& json) {
  return make_wordpiece_tokenizer(WordPieceJsonReader(path, json).read());
}

}  // namespace aw
