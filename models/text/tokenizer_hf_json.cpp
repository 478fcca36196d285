// models/text/tokenizer_hf_json.cpp — tokenizer.json → ByteLevelBpeSpec (see hf_tokenizer.h).
#include "models/text/hf_tokenizer.h"
#include "models/text/wordpiece_spec.h"

#include "models/errors.h"
#include "models/json_input.h"
#include "models/text/byte_level_bpe.h"

#include <nlohmann/json.hpp>

#include <algorithm>


namespace aw {
namespace {

using tokenizer_detail::ByteLevelBpeSpec;

// The parts of one tokenizer.json, each read with the file named in every message.
class TokenizerJsonReader {
 public:
  TokenizerJsonReader(std::string path, nlohmann::json json) : path_(std::move(path)), json_(std::move(json)) {
    if (!json_.is_object()) fail("is not a JSON object (a tokenizer.json is one)");
    spec_.kind = "hf_bpe";
    spec_.vocab_source = spec_.merges_source = path_;
  }

  ByteLevelBpeSpec read() {
    read_model(member(json_, "model", "the file"));
    read_normalizer(json_.value("normalizer", nlohmann::json()));
    read_pre_tokenizer(json_.value("pre_tokenizer", nlohmann::json()));
    // Byte-level BPE needs ByteLevel's byte symbols; SentencePiece-style BPE must not have them.
    if (!spec_.character_symbols && !byte_level_) unsupported("a BPE without byte_fallback or a ByteLevel pre-tokenizer");
    if (spec_.character_symbols && byte_level_) unsupported("a ByteLevel pre-tokenizer with byte_fallback");
    read_added_tokens(json_.value("added_tokens", nlohmann::json::array()));
    read_post_processor(json_.value("post_processor", nlohmann::json()));
    read_decoder(json_.value("decoder", nlohmann::json()));
    return std::move(spec_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { fail_in_file(path_, problem); }
  [[noreturn]] void unsupported(const std::string& what) const {
    fail(what + " is not supported (BPE tokenizers as GPT-NeoX/Pythia, Qwen2, Llama 3, SmolLM, Llama 2 and TinyLlama "
                "ship, WordPiece as BERT's, Unigram as T5's without a precompiled normaliser)");
  }

  const nlohmann::json& member(const nlohmann::json& object, const std::string& key, const std::string& of) const {
    if (!object.is_object() || !object.contains(key)) fail(of + " has no \"" + key + "\"");
    return object.at(key);
  }
  std::string type_of(const nlohmann::json& part, const std::string& what) const {
    const auto& type = member(part, "type", what);
    if (!type.is_string()) fail(what + "'s type is " + json_excerpt(type) + ", not a string");
    return type.get<std::string>();
  }
  bool flag(const nlohmann::json& part, const std::string& key, bool fallback) const {
    if (!part.contains(key) || part.at(key).is_null()) return fallback;
    if (!part.at(key).is_boolean()) fail("\"" + key + "\" is " + json_excerpt(part.at(key)) + ", not true or false");
    return part.at(key).get<bool>();
  }
  // A small count ("start" of a Strip decoder); 0 when absent.
  int count(const nlohmann::json& part, const std::string& key) const {
    if (!part.contains(key)) return 0;
    const auto& value = part.at(key);
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > 1000)
      fail("\"" + key + "\" is " + json_excerpt(value) + ", not a count from 0 to 1000");
    return static_cast<int>(value.get<int64_t>());
  }
  std::string text_of(const nlohmann::json& value, const std::string& what) const {
    if (!value.is_string()) fail(what + " is " + json_excerpt(value) + ", not a string");
    return value.get<std::string>();
  }

  // Unigram: vocab as [[piece, score], …] (ids in order), unk_id, byte_fallback; over characters,
  // runs of unknown characters fused into one unknown token, as the library's Unigram does.
  void read_unigram(const nlohmann::json& model) {
    const auto& vocab = member(model, "vocab", "the model");
    if (!vocab.is_array() || vocab.empty()) fail("model.vocab is " + json_excerpt(vocab) + ", not a list of [piece, score]");
    for (size_t id = 0; id < vocab.size(); ++id) {
      const auto& entry = vocab[id];
      if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
        fail("model.vocab[" + std::to_string(id) + "] is " + json_excerpt(entry) + ", not [piece, score]");
      spec_.spellings.push_back(entry[0].get<std::string>());
      spec_.unigram_scores.push_back(entry[1].get<double>());
    }
    spec_.kind = "hf_unigram";
    spec_.character_symbols = true;
    spec_.byte_fallback = flag(model, "byte_fallback", false);
    spec_.fuse_unk = true;
    if (model.contains("unk_id") && !model.at("unk_id").is_null()) {
      const auto& unk = model.at("unk_id");
      if (!unk.is_number_integer() || unk.get<int64_t>() < 0 || unk.get<size_t>() >= vocab.size())
        fail("model.unk_id is " + json_excerpt(unk) + ", not an id of the vocabulary");
      spec_.unk_id = unk.get<int64_t>();
    }
  }

  void read_model(const nlohmann::json& model) {
    const auto type = type_of(model, "the model");
    if (type == "Unigram") return read_unigram(model);
    if (type != "BPE") unsupported("a " + type + " model");
    // byte_fallback marks SentencePiece-style BPE (Llama 2, TinyLlama): characters, not byte symbols.
    spec_.character_symbols = spec_.byte_fallback = flag(model, "byte_fallback", false);
    spec_.fuse_unk = flag(model, "fuse_unk", false);
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
      if (model.contains(key) && !model.at(key).is_null() && model.at(key) != "")
        unsupported(std::string("BPE with a ") + key);
    if (model.contains("dropout") && !model.at("dropout").is_null() &&
        (!model.at("dropout").is_number() || model.at("dropout").get<double>() != 0.0))
      unsupported("BPE dropout");
    spec_.ignore_merges = flag(model, "ignore_merges", false);
    spec_.spellings = tokenizer_detail::vocab_spellings(member(model, "vocab", "the model"), path_, "model.vocab: ", "token");
    if (model.contains("unk_token") && !model.at("unk_token").is_null()) {
      const auto unk = text_of(model.at("unk_token"), "model.unk_token");
      const auto found = std::find(spec_.spellings.begin(), spec_.spellings.end(), unk);
      if (found == spec_.spellings.end()) fail("model.unk_token " + quoted_excerpt(unk) + " is not in the vocabulary");
      spec_.unk_id = found - spec_.spellings.begin();
    }
    const auto& merges = member(model, "merges", "the model");
    if (!merges.is_array()) fail("model.merges is " + json_excerpt(merges) + ", not a list");
    for (size_t i = 0; i < merges.size(); ++i) {
      const std::string where = "model.merges[" + std::to_string(i) + "]: ";
      const auto& merge = merges[i];
      if (merge.is_string()) {  // "left right" (the older format)
        const auto text = merge.get<std::string>();
        const auto space = text.find(' ');
        if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
          fail(where + "expected two tokens separated by a space, found " + quoted_excerpt(text));
        spec_.merges.push_back({text.substr(0, space), text.substr(space + 1), where});
      } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
        spec_.merges.push_back({merge[0].get<std::string>(), merge[1].get<std::string>(), where});
      } else {
        fail(where + "is " + json_excerpt(merge) + ", not \"left right\" or [left, right]");
      }
    }
  }

  void read_normalizer(const nlohmann::json& normalizer) {
    if (normalizer.is_null()) return;
    using Kind = ByteLevelBpeSpec::Normalizer::Kind;
    const auto type = type_of(normalizer, "the normalizer");
    if (type == "NFC") spec_.normalizers.push_back({Kind::Nfc, "", ""});
    else if (type == "Prepend")
      spec_.normalizers.push_back({Kind::Prepend, text_of(member(normalizer, "prepend", "Prepend"), "Prepend's text"), ""});
    else if (type == "Replace")
      spec_.normalizers.push_back({Kind::Replace, literal_pattern(normalizer, "the Replace normalizer"),
                                   text_of(member(normalizer, "content", "Replace"), "Replace's content")});
    else if (type == "Sequence")
      for (const auto& part : member(normalizer, "normalizers", "the Sequence normalizer")) read_normalizer(part);
    else if (type == "Precompiled")  // SentencePiece's charsmap (T5, XLM-R, mBART): not implemented here
      unsupported("the Precompiled normalizer (SentencePiece's precompiled_charsmap)");
    else unsupported("the normalizer " + type);
  }

  void read_pre_tokenizer(const nlohmann::json& pre_tokenizer) {
    if (pre_tokenizer.is_null()) return;
    const auto type = type_of(pre_tokenizer, "the pre-tokenizer");
    if (type == "Sequence") {
      for (const auto& part : member(pre_tokenizer, "pretokenizers", "the Sequence pre-tokenizer")) read_pre_tokenizer(part);
    } else if (type == "ByteLevel") {
      byte_level_ = true;
      spec_.steps.push_back(ByteLevelBpeSpec::Step::split_by(
          flag(pre_tokenizer, "use_regex", true) ? tokenizer_detail::kGpt2PiecePattern : "",
          flag(pre_tokenizer, "add_prefix_space", false)));
    } else if (type == "Metaspace") {
      ByteLevelBpeSpec::Step step;
      step.kind = ByteLevelBpeSpec::Step::Kind::Metaspace;
      step.replacement = text_of(member(pre_tokenizer, "replacement", "Metaspace"), "Metaspace's replacement");
      // Older files say add_prefix_space instead of prepend_scheme.
      step.prepend_scheme = pre_tokenizer.contains("prepend_scheme")
                                ? text_of(pre_tokenizer.at("prepend_scheme"), "Metaspace's prepend_scheme")
                                : (flag(pre_tokenizer, "add_prefix_space", true) ? "always" : "never");
      if (step.prepend_scheme != "always" && step.prepend_scheme != "first" && step.prepend_scheme != "never")
        unsupported("Metaspace's prepend_scheme " + quoted_excerpt(step.prepend_scheme));
      step.split = flag(pre_tokenizer, "split", true);
      spec_.steps.push_back(std::move(step));
    } else if (type == "Split") {
      if (byte_level_) unsupported("a Split pre-tokenizer after ByteLevel");
      const auto behavior = text_of(member(pre_tokenizer, "behavior", "the Split pre-tokenizer"), "the Split behavior");
      if (behavior != "Isolated") unsupported("the Split behavior " + behavior);
      if (flag(pre_tokenizer, "invert", false)) unsupported("an inverted Split");
      const auto& pattern = member(pre_tokenizer, "pattern", "the Split pre-tokenizer");
      if (pattern.contains("Regex"))
        spec_.steps.push_back(ByteLevelBpeSpec::Step::split_by(text_of(pattern.at("Regex"), "the Split regex"), false));
      else if (pattern.contains("String"))
        spec_.steps.push_back(
            ByteLevelBpeSpec::Step::split_by(quote_literal(text_of(pattern.at("String"), "the Split string")), false));
      else fail("the Split pattern is " + json_excerpt(pattern) + ", not {\"Regex\": …} or {\"String\": …}");
    } else {
      unsupported("the pre-tokenizer " + type);
    }
  }

  // The literal a Replace's pattern names: {"String": "…"} (a regex is not supported there).
  std::string literal_pattern(const nlohmann::json& part, const std::string& what) const {
    const auto& pattern = member(part, "pattern", what);
    if (!pattern.contains("String")) unsupported(what + " with a " + json_excerpt(pattern) + " pattern");
    return text_of(pattern.at("String"), what + "'s string");
  }

  // A literal string as a PCRE2 pattern: \Q…\E, with any \E inside it split out.
  static std::string quote_literal(const std::string& text) {
    std::string quoted = "\\Q";
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.compare(i, 2, "\\E") == 0) {
        quoted += "\\E\\\\E\\Q";
        ++i;
      } else {
        quoted += text[i];
      }
    }
    return quoted + "\\E";
  }

  void read_added_tokens(const nlohmann::json& added) {
    if (!added.is_array()) fail("added_tokens is " + json_excerpt(added) + ", not a list");
    for (size_t i = 0; i < added.size(); ++i) {
      const auto& token = added[i];
      const std::string what = "added_tokens[" + std::to_string(i) + "]";
      ByteLevelBpeSpec::AddedToken entry;
      entry.content = text_of(member(token, "content", what), what + "'s content");
      const auto& id = member(token, "id", what);
      if (!id.is_number_integer() || id.get<int64_t>() < 0) fail(what + "'s id is " + json_excerpt(id) + ", not a non-negative integer");
      entry.id = id.get<int64_t>();
      // Added tokens take the vocabulary's ids or the ones after it, never ids far past it.
      const auto limit = static_cast<int64_t>(spec_.spellings.size() + added.size());
      if (entry.id >= limit)
        fail(what + "'s id " + std::to_string(entry.id) + " is past the " + std::to_string(spec_.spellings.size()) +
             " tokens of the vocabulary and the " + std::to_string(added.size()) + " added tokens");
      entry.special = flag(token, "special", false);
      entry.normalized = flag(token, "normalized", !entry.special);
      entry.lstrip = flag(token, "lstrip", false);
      entry.rstrip = flag(token, "rstrip", false);
      if (flag(token, "single_word", false)) unsupported(what + " " + quoted_excerpt(entry.content) + " with single_word");
      spec_.added.push_back(std::move(entry));
    }
  }

  void read_post_processor(const nlohmann::json& processor) {
    if (processor.is_null()) return;
    const auto type = type_of(processor, "the post-processor");
    if (type == "ByteLevel") return;  // offsets only
    if (type == "Sequence") {
      for (const auto& part : member(processor, "processors", "the Sequence post-processor")) read_post_processor(part);
      return;
    }
    if (type != "TemplateProcessing") unsupported("the post-processor " + type);
    const auto& single = member(processor, "single", "TemplateProcessing");
    if (!single.is_array()) fail("TemplateProcessing's single is " + json_excerpt(single) + ", not a list");
    const auto& specials = processor.value("special_tokens", nlohmann::json::object());
    bool text_seen = false;
    for (const auto& item : single) {
      if (item.contains("Sequence")) {
        text_seen = true;
        continue;
      }
      const auto name = text_of(member(member(item, "SpecialToken", "a template item"), "id", "a SpecialToken"), "a SpecialToken's id");
      if (!specials.contains(name)) fail("the template's special token " + quoted_excerpt(name) + " is not in its special_tokens");
      const auto& ids = member(specials.at(name), "ids", "special_tokens " + quoted_excerpt(name));
      if (!ids.is_array()) fail("special_tokens " + quoted_excerpt(name) + "'s ids are " + json_excerpt(ids) + ", not a list");
      for (const auto& value : ids) {
        if (!value.is_number_integer() || value.get<int64_t>() < 0)
          fail("special_tokens " + quoted_excerpt(name) + " has id " + json_excerpt(value) + ", not a non-negative integer");
        (text_seen ? spec_.suffix_ids : spec_.prefix_ids).push_back(value.get<int64_t>());
      }
    }
  }

  void read_decoder(const nlohmann::json& decoder) {
    if (decoder.is_null()) return;
    const auto type = type_of(decoder, "the decoder");
    if (type == "Sequence") {
      for (const auto& part : member(decoder, "decoders", "the Sequence decoder")) read_decoder(part);
    } else if (type == "ByteLevel" && !spec_.character_symbols) {
      return;  // byte symbols back to bytes: what decode does for byte-level BPE
    } else if (type == "Replace" && spec_.character_symbols) {  // the space symbol back to " "
      const auto from = literal_pattern(decoder, "the Replace decoder");
      if (text_of(member(decoder, "content", "Replace"), "Replace's content") != " ")
        unsupported("a Replace decoder to anything but a space");
      spec_.space_symbol = from;
    } else if (type == "ByteFallback" && spec_.character_symbols) {
      spec_.decode_fallback_bytes = true;  // <0xNN> tokens as their bytes (without it, as spelled)
    } else if (type == "Fuse" && spec_.character_symbols) {
      return;  // the tokens joined: what decode does for character symbols
    } else if (type == "Metaspace" && spec_.character_symbols) {  // T5 / XLM-R: "▁" back to " ", the first one dropped
      spec_.space_symbol = text_of(member(decoder, "replacement", "Metaspace"), "Metaspace's replacement");
      spec_.strip_leading = decoder.value("prepend_scheme", std::string("always")) == "never" ? 0 : 1;
    } else if (type == "Strip" && spec_.character_symbols) {
      const int start = count(decoder, "start"), stop = count(decoder, "stop");
      if (text_of(member(decoder, "content", "Strip"), "Strip's content") != " " || stop != 0)
        unsupported("a Strip decoder other than of leading spaces");
      spec_.strip_leading = start;
    } else {
      unsupported("the decoder " + type + (spec_.character_symbols ? " with byte_fallback" : " with ByteLevel"));
    }
  }

  std::string path_;
  nlohmann::json json_;
  ByteLevelBpeSpec spec_;
  bool byte_level_ = false;  // a ByteLevel pre-tokenizer was read
};

}  // namespace

std::unique_ptr<Tokenizer> load_hf_tokenizer(const std::string& tokenizer_json_path) {
  return load_hf_tokenizer_json(read_untrusted_json(tokenizer_json_path), tokenizer_json_path);
}

std::unique_ptr<Tokenizer> load_hf_tokenizer_json(nlohmann::json json, const std::string& name) {
  // A WordPiece model (BERT-family folders) has a reader of its own.
  if (json.is_object() && json.contains("model") && json.at("model").is_object() &&
      json.at("model").value("type", std::string()) == "WordPiece")
    return load_wordpiece_json(name, json);
  auto spec = TokenizerJsonReader(name, std::move(json)).read();
  return tokenizer_detail::make_byte_level_bpe(std::move(spec));
}

}  // namespace aw
