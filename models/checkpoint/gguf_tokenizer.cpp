// models/checkpoint/gguf_tokenizer.cpp — a GGUF file's tokenizer (tokenizer.ggml.*) as the tokenizer.json
// transformers builds from it (its integrations/gguf/gguf_tokenizer_mapping.py), read by the workbench's own
// tokenizer.json reader, so that the ids are Hugging Face's for the same file:
//   gpt2   byte-level BPE: tokens (respelled into GPT-2's byte symbols where a token is not), merges, the
//          split pattern tokenizer.ggml.pre names, no normalizer;
//   llama  SentencePiece BPE with byte fallback: merges made from the pieces' scores (transformers'
//          generate_merges: every split of a piece into two pieces, best score first), "▁" for spaces put
//          before the text (Metaspace, "first"); under gemma2/gemma3 Gemma's form of it (merges in file
//          order, spaces replaced, nothing put before).
// Control tokens (token_type 3) are special added tokens, user-defined ones (4) plain added tokens; BOS and
// EOS are put around a text as tokenizer.ggml.add_bos_token / add_eos_token say (BOS by default for llama).
#include "models/checkpoint/gguf_model.h"

#include "models/checkpoint/gguf_file.h"
#include "models/errors.h"
#include "models/text/hf_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <vector>

namespace aw {
namespace {

constexpr int64_t kControl = 3, kUserDefined = 4;

// transformers' GGUF_PRE_TOKENIZER_SPLITS for the pre-tokenizers of the architectures opened here.
const char* const kLlama3Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const std::vector<std::pair<std::string, const char*>> kPreTokenizers = {
    {"default", nullptr}, {"gpt-2", nullptr},  // GPT-2's own ByteLevel regex
    {"llama3", kLlama3Split}, {"llama-v3", kLlama3Split}, {"llama-bpe", kLlama3Split}, {"smaug-bpe", kLlama3Split},
    {"dbrx", kLlama3Split}, {"falcon3", kLlama3Split}, {"pixtral", kLlama3Split},
    {"qwen2", kQwen2Split}, {"deepseek-r1-qwen", kQwen2Split}, {"megrez", kQwen2Split}};

// UTF-8 of one code point.
std::string utf8(char32_t c) {
  std::string out;
  if (c < 0x80) out += static_cast<char>(c);
  else if (c < 0x800) out += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
  else out += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
  return out;
}

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for 256, 257, … in order.
std::vector<std::string> byte_symbols() {
  std::vector<std::string> symbols(256);
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    symbols[b] = utf8(printable ? static_cast<char32_t>(b) : next++);
  }
  return symbols;
}

// The characters of a UTF-8 string (a byte of no whole character is one of its own), as Python's str sees them.
std::vector<std::string> characters(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    if (i + length > text.size()) length = 1;
    for (size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) length = 1;
    out.push_back(text.substr(i, length));
    i += length;
  }
  return out;
}

class GgufTokenizerBuilder {
 public:
  explicit GgufTokenizerBuilder(const GgufFile& file) : file_(file) {}

  nlohmann::json build() {
    if (!file_.has("tokenizer.ggml.model"))
      fail("no tokenizer.ggml.model in its metadata (the tokenizer's kind: gpt2 or llama)");
    model_ = file_.string_value("tokenizer.ggml.model");
    if (model_ != "gpt2" && model_ != "llama")
      fail("tokenizer.ggml.model " + quoted_excerpt(model_) + " is not supported (supported: gpt2, llama)");
    if (!file_.has("tokenizer.ggml.tokens"))
      fail("no tokenizer.ggml.tokens in its metadata (the vocabulary, which sizes the embedding)");
    tokens_ = file_.string_array("tokenizer.ggml.tokens");
    if (tokens_.empty()) fail("tokenizer.ggml.tokens is empty");
    types_ = per_token_integers("tokenizer.ggml.token_type");
    gemma_ = file_.architecture() == "gemma2" || file_.architecture() == "gemma3";
    if (model_ == "gpt2") byte_level();
    else sentencepiece();
    added_tokens();
    post_processor();
    json_["version"] = "1.0";
    return std::move(json_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_in_file(file_.path(), what); }
  std::string count_text() const { return std::to_string(tokens_.size()) + " tokens"; }

  std::vector<int64_t> per_token_integers(const std::string& key) const {
    if (!file_.has(key)) return {};
    auto values = file_.integer_array(key);
    if (values.size() != tokens_.size())
      fail(key + " has " + std::to_string(values.size()) + " entries for " + count_text());
    return values;
  }

  // The vocabulary {spelling: id}; a spelling twice is refused (a JSON object holds one).
  nlohmann::json vocab_object(const std::vector<std::string>& spellings) {
    nlohmann::json vocab = nlohmann::json::object();
    for (size_t id = 0; id < spellings.size(); ++id) {
      const auto found = ids_.find(spellings[id]);
      if (found != ids_.end())
        fail("tokenizer.ggml.tokens holds " + quoted_excerpt(spellings[id]) + " twice (ids " +
             std::to_string(found->second) + " and " + std::to_string(id) + ")");
      ids_[spellings[id]] = static_cast<int64_t>(id);
      vocab[spellings[id]] = id;
    }
    return vocab;
  }

  void byte_level() {
    const auto symbols = byte_symbols();
    const std::set<std::string> alphabet(symbols.begin(), symbols.end());
    // A token spelt outside the byte alphabet is respelled from its bytes, as transformers does.
    for (const auto& token : tokens_) {
      const auto chars = characters(token);
      const bool spelt = std::all_of(chars.begin(), chars.end(), [&](const std::string& c) { return alphabet.count(c) != 0; });
      std::string spelling;
      if (spelt) spelling = token;
      else
        for (unsigned char byte : token) spelling += symbols[byte];
      spellings_.push_back(spelling);
      in_alphabet_.push_back(spelt);
    }
    auto vocab = vocab_object(spellings_);
    if (!file_.has("tokenizer.ggml.merges"))
      fail("no tokenizer.ggml.merges in its metadata (a gpt2 tokenizer's merges)");
    const auto merges = file_.string_array("tokenizer.ggml.merges");
    for (size_t i = 0; i < merges.size(); ++i) {
      const auto where = "tokenizer.ggml.merges[" + std::to_string(i) + "] " + quoted_excerpt(merges[i]);
      const auto space = merges[i].find(' ');
      if (space == std::string::npos || merges[i].find(' ', space + 1) != std::string::npos)
        fail(where + " is not two tokens separated by a space");
      for (const auto& part : {merges[i].substr(0, space), merges[i].substr(space + 1)})
        if (!ids_.count(part)) fail(where + " names " + quoted_excerpt(part) + ", which is not a token");
    }
    json_["model"] = {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", merges}, {"byte_fallback", false},
                      {"fuse_unk", false}, {"ignore_merges", false}};
    const auto pre = file_.has("tokenizer.ggml.pre") ? file_.string_value("tokenizer.ggml.pre") : std::string("default");
    const auto found = std::find_if(kPreTokenizers.begin(), kPreTokenizers.end(), [&](const auto& entry) { return entry.first == pre; });
    if (found == kPreTokenizers.end()) {
      std::string names;
      for (const auto& entry : kPreTokenizers) names += (names.empty() ? "" : ", ") + entry.first;
      fail("tokenizer.ggml.pre " + quoted_excerpt(pre) + " is not supported (supported: " + names + ")");
    }
    if (found->second)
      json_["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers",
                                {{{"type", "Split"}, {"pattern", {{"Regex", found->second}}}, {"behavior", "Isolated"}, {"invert", false}},
                                 {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    else
      json_["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    json_["decoder"] = {{"type", "ByteLevel"}};
  }

  void sentencepiece() {
    // Gemma's files write a piece of spaces as spaces; its tokenizer looks them up as "▁▁".
    for (const auto& token : tokens_) {
      const bool spaces = gemma_ && token.size() >= 2 && token.find_first_not_of(' ') == std::string::npos;
      std::string spelling;
      if (spaces)
        for (size_t i = 0; i < token.size(); ++i) spelling += "\u2581";
      spellings_.push_back(spaces ? spelling : token);
      in_alphabet_.push_back(true);
    }
    auto vocab = vocab_object(spellings_);
    std::vector<double> scores(tokens_.size());
    if (gemma_) {  // Gemma's scores do not follow its merges; the pieces' order does
      for (size_t id = 0; id < scores.size(); ++id) scores[id] = -static_cast<double>(id);
    } else {
      if (!file_.has("tokenizer.ggml.scores"))
        fail("no tokenizer.ggml.scores in its metadata (a llama tokenizer's merges follow the pieces' scores)");
      scores = file_.float_array("tokenizer.ggml.scores");
      if (scores.size() != tokens_.size())
        fail("tokenizer.ggml.scores has " + std::to_string(scores.size()) + " entries for " + count_text());
    }
    json_["model"] = {{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", merges_from_scores(scores)},
                      {"byte_fallback", true}, {"fuse_unk", true}, {"ignore_merges", false}};
    if (gemma_) {
      if (ids_.count("<unk>")) json_["model"]["unk_token"] = "<unk>";
      json_["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
    } else {
      // llama.cpp's add_space_prefix false (transformers ignores it) puts nothing before the text.
      const bool prefix = !file_.has("tokenizer.ggml.add_space_prefix") || file_.bool_value("tokenizer.ggml.add_space_prefix");
      json_["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", prefix ? "first" : "never"},
                                {"split", false}};
    }
    nlohmann::json decoders = {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                               {{"type", "ByteFallback"}}, {{"type", "Fuse"}}};
    if (!gemma_) decoders.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
    json_["decoder"] = {{"type", "Sequence"}, {"decoders", std::move(decoders)}};
  }

  // transformers' generate_merges(vocab, scores): for each piece (in id order), every split into two
  // pieces, ordered by the two halves' ids; then all of them by score, longer left half, longer right
  // half, best first — a stable sort, so ties keep that order.
  nlohmann::json merges_from_scores(const std::vector<double>& scores) const {
    struct Merge {
      std::string left, right;
      double score;
      size_t left_length, right_length;
    };
    std::vector<Merge> merges;
    for (size_t id = 0; id < spellings_.size(); ++id) {
      const auto chars = characters(spellings_[id]);
      std::vector<Merge> local;
      std::string left;
      for (size_t cut = 1; cut < chars.size(); ++cut) {
        left += chars[cut - 1];
        const auto right = spellings_[id].substr(left.size());
        if (ids_.count(left) && ids_.count(right)) local.push_back({left, right, scores[id], cut, chars.size() - cut});
      }
      std::stable_sort(local.begin(), local.end(), [&](const Merge& a, const Merge& b) {
        const auto ka = std::make_pair(ids_.at(a.left), ids_.at(a.right)), kb = std::make_pair(ids_.at(b.left), ids_.at(b.right));
        return ka < kb;
      });
      merges.insert(merges.end(), local.begin(), local.end());
    }
    std::stable_sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) {
      return std::make_tuple(a.score, a.left_length, a.right_length) > std::make_tuple(b.score, b.left_length, b.right_length);
    });
    nlohmann::json list = nlohmann::json::array();
    for (const auto& merge : merges) list.push_back({merge.left, merge.right});
    return list;
  }

  void added_tokens() {
    nlohmann::json added = nlohmann::json::array();
    for (size_t id = 0; id < types_.size(); ++id) {
      // A byte-level control token spelt outside the byte alphabet is a mislabel transformers skips.
      const bool control = types_[id] == kControl && in_alphabet_[id];
      const bool user = types_[id] == kUserDefined && ids_.count(tokens_[id]);
      if (!control && !user) continue;
      added.push_back({{"id", id}, {"content", control ? spellings_[id] : tokens_[id]}, {"special", control},
                       {"normalized", false}, {"lstrip", false}, {"rstrip", false}, {"single_word", false}});
    }
    json_["added_tokens"] = std::move(added);
  }

  // An id key, checked against the vocabulary; -1 when absent.
  int64_t token_id(const std::string& key) const {
    if (!file_.has(key)) return -1;
    const auto id = file_.integer_value(key);
    if (id < 0 || id >= static_cast<int64_t>(tokens_.size()))
      fail(key + " " + std::to_string(id) + " is not a token id (the vocabulary has " + count_text() + ")");
    return id;
  }

  void post_processor() {
    const auto bos = token_id("tokenizer.ggml.bos_token_id"), eos = token_id("tokenizer.ggml.eos_token_id");
    token_id("tokenizer.ggml.unknown_token_id");
    token_id("tokenizer.ggml.padding_token_id");
    const auto flag = [&](const std::string& key, bool fallback) { return file_.has(key) ? file_.bool_value(key) : fallback; };
    const bool add_bos = flag("tokenizer.ggml.add_bos_token", model_ == "llama");
    const bool add_eos = flag("tokenizer.ggml.add_eos_token", false);
    nlohmann::json single = nlohmann::json::array(), specials = nlohmann::json::object();
    const auto special = [&](int64_t id, const std::string& which) {
      if (id < 0) fail("tokenizer.ggml.add_" + which + "_token is true but there is no tokenizer.ggml." + which + "_token_id");
      const auto& name = spellings_[static_cast<size_t>(id)];
      single.push_back({{"SpecialToken", {{"id", name}, {"type_id", 0}}}});
      specials[name] = {{"id", name}, {"ids", {id}}, {"tokens", {name}}};
    };
    if (add_bos) special(bos, "bos");
    single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
    if (add_eos) special(eos, "eos");
    json_["post_processor"] = {{"type", "TemplateProcessing"}, {"single", std::move(single)}, {"special_tokens", std::move(specials)}};
  }

  const GgufFile& file_;
  std::string model_;
  bool gemma_ = false;
  std::vector<std::string> tokens_, spellings_;
  std::vector<bool> in_alphabet_;
  std::vector<int64_t> types_;
  std::unordered_map<std::string, int64_t> ids_;  // spelling → id
  nlohmann::json json_ = nlohmann::json::object();
};

}  // namespace

nlohmann::json gguf_tokenizer_json(const GgufFile& file) { return GgufTokenizerBuilder(file).build(); }

std::shared_ptr<const Tokenizer> load_gguf_tokenizer(const GgufFile& file) {
  return load_hf_tokenizer_json(gguf_tokenizer_json(file), file.path());
}

}  // namespace aw
